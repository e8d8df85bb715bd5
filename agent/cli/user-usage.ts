/** Usage lines of `vigil user` (kept apart so `vigil --help` does not load the command). */
export const USER_USAGE = `vigil user add --name NAME --role reader|contributor [--role ...] --password-stdin [--data-dir DIR]
  vigil user list [--data-dir DIR]
  vigil user remove --name NAME [--data-dir DIR]
  vigil user set-password --name NAME --password-stdin [--data-dir DIR]
  vigil user set-roles --name NAME --role reader|contributor [--role ...] [--data-dir DIR]`;
