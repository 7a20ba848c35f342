# Dovecot Pigeonhole: run every message through passconduit (sieve_extprograms "filter").
# The program must be in sieve_filter_bin_dir (see 90-passconduit.conf). `filter` replaces the
# message with the program's output; if passconduit exits non-zero (75), the test is false and the
# message stays unchanged. Global script (sieve_before), because vnd.dovecot.filter is restricted.
require ["vnd.dovecot.filter", "fileinto", "mailbox"];

if filter "passconduit-filter" {
  # The message now carries X-Passconduit headers when it had passes.
  if header :contains "X-Passconduit" "new" {
    fileinto :create "Passes";
    stop;
  }
}
