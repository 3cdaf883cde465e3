/**
 * Light / dark theme: the user's choice ('system' follows the OS through prefers-color-scheme) is
 * kept in localStorage and resolved to data-theme on <html>, which the CSS tokens key on. The canvas
 * painters read the same tokens (cssToken) so the task stream matches the theme.
 */
export type ThemeChoice = 'system' | 'light' | 'dark';
export type Theme = 'light' | 'dark';

const KEY = 'gpuflow.theme';

export function loadThemeChoice(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): ThemeChoice {
  const v = storage?.getItem(KEY);
  return v === 'light' || v === 'dark' ? v : 'system';
}

export function saveThemeChoice(choice: ThemeChoice, storage: Pick<Storage, 'setItem'> | undefined = globalThis.localStorage) {
  storage?.setItem(KEY, choice);
}

export function resolveTheme(choice: ThemeChoice, osDark: boolean): Theme {
  return choice === 'system' ? (osDark ? 'dark' : 'light') : choice;
}

/** The next choice of the toolbar's theme button: system → light → dark → system. */
export function nextThemeChoice(c: ThemeChoice): ThemeChoice {
  return c === 'system' ? 'light' : c === 'light' ? 'dark' : 'system';
}

/** A CSS custom property's value on <html>, or the fallback outside a browser. */
export function cssToken(name: string, fallback: string): string {
  if (typeof document === 'undefined') return fallback;
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}
