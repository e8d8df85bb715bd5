/** Usage lines of `vigil domain` (kept apart so `vigil --help` does not load the command). */
export const DOMAIN_USAGE = `vigil domain add --name NAME --server URL --bind-dn DN [--base-dn DN] [--polling-interval SECONDS] [--tls starttls|none] [--ca-file FILE] --password-stdin [--data-dir DIR]
  vigil domain list [--data-dir DIR]
  vigil domain remove ID [--data-dir DIR]`;
