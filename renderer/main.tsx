/** Entry: one renderer code path; the API comes from Electron's preload when present, else from serve over HTTP. */
import '@xyflow/react/dist/style.css';
import './styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createHttpClient } from './api/http-client';
import { createIpcClient, hasPreload } from './api/ipc-client';
import { createSession } from './state/session';
import { App } from './ui/App';
import { SessionContext } from './ui/hooks';

const api = hasPreload() ? createIpcClient() : createHttpClient();
const session = createSession(api, (fn) => requestAnimationFrame(fn));
void session.init();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <SessionContext.Provider value={session}>
      <App />
    </SessionContext.Provider>
  </StrictMode>,
);
