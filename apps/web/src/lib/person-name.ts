const TITLES = /^(?:dr|dra|sr|sra|srta|prof|profa)\.?$/i;

/** "Maria da Silva" -> "Maria"; "Dra. Ana Souza" -> "Dra. Ana" (a title stays with the name). */
export function firstName(name: string): string {
  const words = name.split(/\s+/).filter(Boolean);
  if (words.length === 0) return '';
  if (TITLES.test(words[0]!) && words[1]) return `${words[0]} ${words[1]}`;
  return words[0]!;
}
