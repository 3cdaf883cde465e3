/** Entry: one renderer code path; the API comes from Electron's preload when present, else from serve over HTTP. */
import '@xyflow/react/dist/style.css';
import './styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createHttpClient } from './api/http-client';
import { createIpcClient, hasPreload } from './api/ipc-client';
import { attachAutosave, autosaveKey } from './state/autosave';
import { createSession } from './state/session';
import { App } from './ui/App';
import { SessionContext } from './ui/hooks';

const api = hasPreload() ? createIpcClient() : createHttpClient();
const session = createSession(api, (fn) => requestAnimationFrame(fn));
// The draft of the last visit to this server comes back before the first paint; then every edit is kept.
const autosave = attachAutosave(session.editor, localStorage, autosaveKey(location.origin), (fn, ms) => {
  const t = setTimeout(fn, ms);
  return () => clearTimeout(t);
});
addEventListener('pagehide', autosave.flush);
document.addEventListener('visibilitychange', () => document.visibilityState === 'hidden' && autosave.flush());
void session.init().then(() => (autosave.restored ? session.validateNow() : undefined));

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <SessionContext.Provider value={session}>
      <App />
    </SessionContext.Provider>
  </StrictMode>,
);
