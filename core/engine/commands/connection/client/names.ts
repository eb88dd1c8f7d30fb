/** Client names and library names: printable ASCII without spaces (Redis's validateClientAttr). */
export function validName(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 33 || c > 126) return false;
  }
  return true;
}
