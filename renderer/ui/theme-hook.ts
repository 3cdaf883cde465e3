/** React side of the theme: the choice as state, applied to <html data-theme>, following the OS while 'system'. */
import { createContext, useContext, useEffect, useLayoutEffect, useState } from 'react';
import { loadThemeChoice, resolveTheme, saveThemeChoice, type Theme, type ThemeChoice } from '../logic/theme';

const media = () => (typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null);

export function useTheme(): { choice: ThemeChoice; theme: Theme; setChoice(c: ThemeChoice): void } {
  const [choice, setChoiceState] = useState<ThemeChoice>(() => loadThemeChoice());
  const [osDark, setOsDark] = useState(() => media()?.matches ?? false);
  useEffect(() => {
    const m = media();
    if (!m) return;
    const on = (e: MediaQueryListEvent) => setOsDark(e.matches);
    m.addEventListener('change', on);
    return () => m.removeEventListener('change', on);
  }, []);
  const theme = resolveTheme(choice, osDark);
  // A layout effect: it runs before the children's effects, which read the tokens (the stream canvas).
  useLayoutEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  return {
    choice,
    theme,
    setChoice(c) {
      saveThemeChoice(c);
      setChoiceState(c);
    },
  };
}

export const ThemeContext = createContext<ReturnType<typeof useTheme>>({ choice: 'system', theme: 'light', setChoice: () => undefined });
export const useThemeContext = () => useContext(ThemeContext);
