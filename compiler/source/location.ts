// Source locations. Nodes carry the offset plus row/col (1-based) computed by the
// parser from its line table; `text` is the source snippet OPA shows in locations.
export interface Location {
  file: string;
  row: number;
  col: number;
  offset: number;
}

export function loc(file: string, row: number, col: number, offset = 0): Location {
  return { file, row, col, offset };
}

/** `file:row` as OPA prefixes error messages. */
export function formatLocation(l: Location | undefined): string {
  if (!l) return '';
  return l.file ? `${l.file}:${l.row}` : `${l.row}`;
}
