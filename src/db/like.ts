// A LIKE/ILIKE pattern that matches `text` anywhere, with its wildcards taken literally.
export function escapeLike(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
