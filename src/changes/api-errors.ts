import type { CloudError } from '../cloud/errors';

// A 422's messages back onto the form: a message naming a form field goes on
// that field; the rest are about the whole form.

/** API error keys that name no field (Rails' `base`). */
const NON_FIELD_KEYS = new Set(['base', 'error', 'errors', 'message', 'messages', '']);

/** API messages onto form fields where the names match; the rest as form-level lines. */
export function mapApiErrors(error: CloudError, formFields: readonly string[]): { fieldErrors: Record<string, string>; formErrors: string[] } {
  const fieldErrors: Record<string, string> = {};
  const formErrors: string[] = [];
  for (const [name, messages] of Object.entries(error.fieldErrors)) {
    const text = messages.filter((m) => m.trim() !== '').join('; ');
    if (text === '') continue;
    const field = fieldName(name);
    if (formFields.includes(field)) fieldErrors[field] = fieldErrors[field] === undefined ? text : `${fieldErrors[field]}; ${text}`;
    else formErrors.push(NON_FIELD_KEYS.has(field) ? text : `${name} ${text}`);
  }
  for (const message of error.messages) {
    if (message.trim() === '' || formErrors.includes(message)) continue;
    // XML errors are full sentences ("disk_size must be…", Rails' "Disk size must be…"): put them on their field too.
    const field = formFields.find((f) => leadsWithField(message, f));
    if (field) fieldErrors[field] = fieldErrors[field] === undefined ? message : `${fieldErrors[field]}; ${message}`;
    else formErrors.push(message);
  }
  return { fieldErrors, formErrors };
}

function leadsWithField(message: string, field: string): boolean {
  const lower = message.toLowerCase();
  return [field, field.replace(/_/g, ' ')].some((name) => lower.startsWith(`${name} `));
}

/** `disk[disk_size]`, `disk.disk_size` and `disk_size` all name the field `disk_size`. */
function fieldName(name: string): string {
  const bracket = /^\w+\[(\w+)\]$/.exec(name);
  if (bracket) return bracket[1]!;
  const dot = name.lastIndexOf('.');
  return dot >= 0 ? name.slice(dot + 1) : name;
}
