/* GMime 3.2 side of the MailMIME benchmark: the same work as `MIMEBench walk|decode FILE`.
 *
 *   walk   parse every message of an mbox and visit every part (content type, file name, disposition)
 *   decode the same, and transfer-decode every leaf part into a null stream
 *
 * Build: gcc -O2 bench_gmime.c $(pkg-config --cflags --libs gmime-3.0) -o bench_gmime
 * Run:   ./bench_gmime walk|decode FILE.mbox
 * Prints: mode messages parts bytes decoded seconds MB/s (same line format as MIMEBench).
 * The parser reads the file through a GMimeStreamFs in mbox mode with its default persistent stream,
 * so part contents stay offsets into the file until decoded (GMime's fastest configuration).
 */
#include <gmime/gmime.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static size_t parts, decoded, touched;
static int decode_mode;

static void visit (GMimeObject *parent, GMimeObject *part, gpointer data) {
	(void) parent; (void) data;
	parts++;
	GMimeContentType *ct = g_mime_object_get_content_type (part);
	if (ct) touched += strlen (g_mime_content_type_get_media_type (ct));
	GMimeContentDisposition *cd = g_mime_object_get_content_disposition (part);
	if (cd && g_mime_content_disposition_get_disposition (cd)) touched += strlen (g_mime_content_disposition_get_disposition (cd));
	if (GMIME_IS_MESSAGE_PART (part)) {
		GMimeMessage *inner = g_mime_message_part_get_message ((GMimeMessagePart *) part);
		if (inner) g_mime_message_foreach (inner, visit, NULL);  /* visits the encapsulated root too */
		return;
	}
	if (!GMIME_IS_PART (part)) return;
	const char *name = g_mime_part_get_filename ((GMimePart *) part);
	if (name) touched += strlen (name);
	if (decode_mode) {
		GMimeDataWrapper *content = g_mime_part_get_content ((GMimePart *) part);
		if (content) {
			GMimeStream *null = g_mime_stream_null_new ();
			g_mime_data_wrapper_write_to_stream (content, null);
			decoded += ((GMimeStreamNull *) null)->written;
			g_object_unref (null);
		}
	}
}

int main (int argc, char **argv) {
	if (argc != 3 || (strcmp (argv[1], "walk") && strcmp (argv[1], "decode"))) {
		fprintf (stderr, "usage: %s walk|decode FILE.mbox\n", argv[0]);
		return 64;
	}
	decode_mode = !strcmp (argv[1], "decode");
	g_mime_init ();
	struct timespec t0, t1;
	clock_gettime (CLOCK_MONOTONIC, &t0);
	int fd = open (argv[2], O_RDONLY);
	if (fd < 0) { perror (argv[2]); return 66; }
	struct stat st;
	fstat (fd, &st);
	GMimeStream *stream = g_mime_stream_fs_new (fd);
	GMimeParser *parser = g_mime_parser_new_with_stream (stream);
	g_mime_parser_set_format (parser, GMIME_FORMAT_MBOX);
	size_t messages = 0, failed = 0;
	while (!g_mime_parser_eos (parser)) {
		gint64 before = g_mime_parser_tell (parser);
		GMimeMessage *message = g_mime_parser_construct_message (parser, NULL);
		if (!message) {
			/* GMime gives up on some real messages (after the corpus's mimekit issue1189 ones it
			 * reports the end of the stream); count them and go on, so the whole mbox is read. */
			failed++;
			gint64 at = g_mime_parser_tell (parser);
			if (at >= st.st_size) break;
			/* A new parser from where this one stopped (or just past where it started):
			 * GMime's mbox mode skips to the next From_ line. */
			if (at <= before) at = before + 1;
			g_object_unref (parser);
			g_mime_stream_seek (stream, at, GMIME_STREAM_SEEK_SET);
			parser = g_mime_parser_new_with_stream (stream);
			g_mime_parser_set_format (parser, GMIME_FORMAT_MBOX);
			continue;
		}
		messages++;
		g_mime_message_foreach (message, visit, NULL);
		g_object_unref (message);
	}
	clock_gettime (CLOCK_MONOTONIC, &t1);
	double seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (failed) fprintf (stderr, "GMime could not construct %zu message(s)\n", failed);
	printf ("%s messages=%zu parts=%zu bytes=%lld decoded=%zu seconds=%.3f MB/s=%.1f (check %zu)\n", argv[1], messages, parts,
	        (long long) st.st_size, decoded, seconds, st.st_size / 1e6 / seconds, touched % 7);
	g_object_unref (parser);
	g_object_unref (stream);
	return 0;
}
