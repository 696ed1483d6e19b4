// A generated data document of objects and strings, for the memory benchmark and
// the large-write reliability tests: `users` keyed by id, each with a name, an email,
// a department, roles and a few attributes, plus a `groups` map of member lists.
// Deterministic (a fixed linear congruential generator), so sizes are stable.

const DEPARTMENTS = ['engineering', 'finance', 'sales', 'marketing', 'support', 'legal', 'operations', 'research'];
const ROLES = ['admin', 'developer', 'viewer', 'auditor', 'billing', 'operator', 'analyst', 'manager'];
const CITIES = ['Amsterdam', 'Berlin', 'Chicago', 'Denver', 'Edinburgh', 'Florence', 'Geneva', 'Helsinki'];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s;
  };
}

function word(next: () => number, len: number): string {
  let w = '';
  for (let i = 0; i < len; i++) w += String.fromCharCode(97 + (next() % 26));
  return w;
}

/** JSON text of about `bytes` bytes (a little more: the last user completes). */
export function generateDocumentText(bytes: number, seed = 1): string {
  const next = rng(seed);
  const parts: string[] = [];
  let size = 0;
  const groups: Record<string, string[]> = {};
  for (let i = 0; size < bytes * 0.935; i++) {
    const id = `user-${String(i).padStart(7, '0')}`;
    const first = word(next, 4 + (next() % 6));
    const last = word(next, 5 + (next() % 7));
    const dept = DEPARTMENTS[next() % DEPARTMENTS.length]!;
    const roles = [ROLES[next() % ROLES.length]!, ROLES[next() % ROLES.length]!];
    const user = {
      name: `${first} ${last}`,
      email: `${first}.${last}@example.com`,
      department: dept,
      roles,
      location: { city: CITIES[next() % CITIES.length]!, floor: String(next() % 20) },
      manager: `user-${String(next() % (i + 1)).padStart(7, '0')}`,
      active: next() % 10 !== 0,
    };
    const text = JSON.stringify(id) + ':' + JSON.stringify(user);
    parts.push(text);
    size += text.length + 1;
    (groups[dept] ??= []).push(id);
  }
  const users = '{' + parts.join(',') + '}';
  return `{"users":${users},"groups":${JSON.stringify(groups)}}`;
}
