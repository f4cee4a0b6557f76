import { readCommand } from '../commands';
import type { ButtonArgs } from './button-args';

// A button that runs a `/vs` command: the server's card's Firewall, Backups,
// Add disk, Reboot server… Its value is the command as typed after `/vs`
// ("firewall 42"); it is read, checked and run exactly as if the person had
// typed it (the row's needs are the command's), so a forged value can do no
// more than typing it could. The answer goes where the command's would: to
// the click's response_url, and a form opens on the click's trigger.

/** The command a button's value names (an unreadable one is answered with the usage, as a mistyped command is). */
export const commandOfButton = ({ action }: Pick<ButtonArgs, 'action'>) => readCommand(typeof action.value === 'string' ? action.value : '');
