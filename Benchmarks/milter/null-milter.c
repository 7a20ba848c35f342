/* The floor for Benchmarks/milter/run.sh (MILTER=null): a milter that does nothing, on
 * sendmail's libmilter (libmilter-dev). It asks Postfix for what `passconduit milter` asks for
 * (recipients, headers and body; no connect, HELO, MAIL, DATA or unknown-command stages; no
 * replies but the end of message's; header values with their leading space; the two header
 * actions) and accepts every message unchanged. Its run measures what Postfix's own milter
 * client costs per message on this machine, so the ratio it gets is the ceiling any milter can
 * reach here.
 *
 *   cc -O2 -o null-milter null-milter.c -lmilter -lpthread
 *   ./null-milter inet:PORT@127.0.0.1     or     ./null-milter unix:/path/to.sock
 */
#include <libmilter/mfapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static sfsistat negotiate(SMFICTX *ctx, unsigned long f0, unsigned long f1, unsigned long f2, unsigned long f3,
                          unsigned long *pf0, unsigned long *pf1, unsigned long *pf2, unsigned long *pf3) {
    (void)ctx; (void)f2; (void)f3;
    unsigned long steps = SMFIP_NOCONNECT | SMFIP_NOHELO | SMFIP_NOMAIL | SMFIP_NOUNKNOWN | SMFIP_NODATA |
                          SMFIP_NR_RCPT | SMFIP_NR_HDR | SMFIP_NR_EOH | SMFIP_NR_BODY | SMFIP_HDR_LEADSPC;
    *pf0 = f0 & (SMFIF_ADDHDRS | SMFIF_CHGHDRS);
    *pf1 = f1 & steps;
    *pf2 = 0;
    *pf3 = 0;
    return SMFIS_CONTINUE;
}
static sfsistat rcpt(SMFICTX *ctx, char **argv) { (void)ctx; (void)argv; return SMFIS_NOREPLY; }
static sfsistat header(SMFICTX *ctx, char *name, char *value) { (void)ctx; (void)name; (void)value; return SMFIS_NOREPLY; }
static sfsistat eoh(SMFICTX *ctx) { (void)ctx; return SMFIS_NOREPLY; }
static sfsistat body(SMFICTX *ctx, unsigned char *bytes, size_t len) { (void)ctx; (void)bytes; (void)len; return SMFIS_NOREPLY; }
static sfsistat eom(SMFICTX *ctx) { (void)ctx; return SMFIS_CONTINUE; }

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s inet:PORT@HOST|unix:PATH\n", argv[0]); return 64; }
    struct smfiDesc desc = {
        .xxfi_name = "null", .xxfi_version = SMFI_VERSION, .xxfi_flags = SMFIF_ADDHDRS | SMFIF_CHGHDRS,
        .xxfi_envrcpt = rcpt, .xxfi_header = header, .xxfi_eoh = eoh, .xxfi_body = body, .xxfi_eom = eom,
        .xxfi_negotiate = negotiate,
    };
    umask(0);
    if (smfi_setconn(argv[1]) != MI_SUCCESS || smfi_register(desc) != MI_SUCCESS) return 71;
    return smfi_main() == MI_SUCCESS ? 0 : 75;
}
