import { render, type ComponentChildren } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { createApi, Problem } from './api/client.js';
import { ExplorerView } from './explorer/explorer-view.js';
import type { FileRef } from './explorer/file-view.js';
import { JobsView } from './jobs/jobs-view.js';
import { PackageView } from './packages/package-view.js';
import { CompareView } from './search/compare-view.js';
import { GrepView } from './search/grep-view.js';
import { DocumentError, readCycloneDx } from './sbom/document.js';
import { SbomView, type LoadedSbom } from './sbom/sbom-view.js';
import { ProblemBox } from './ui/problem-box.js';
import './styles.css';

const TABS = [
  { id: 'jobs', label: 'Jobs' },
  { id: 'inventory', label: 'Inventory' },
  { id: 'explorer', label: 'Explorer' },
  { id: 'package', label: 'Package' },
  { id: 'grep', label: 'Search' },
  { id: 'compare', label: 'Compare' },
] as const;
type TabId = (typeof TABS)[number]['id'];

/** Where the token is kept when the user asks for it: this tab's session storage, never localStorage. */
const TOKEN_KEY = 'pkgscope-token';

function storedToken(): string {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return '';
  }
}

function App() {
  const [token, setToken] = useState(storedToken);
  const [remember, setRemember] = useState(() => storedToken() !== '');
  const [tab, setTab] = useState<TabId>('jobs');
  const [status, setStatus] = useState('');
  const [inventory, setInventory] = useState<LoadedSbom | null>(null);
  const [inventoryProblem, setInventoryProblem] = useState<Problem | null>(null);
  const [openFile, setOpenFile] = useState<FileRef | null>(null);
  const [browseTarget, setBrowseTarget] = useState<string | null>(null);
  const [openPackage, setOpenPackage] = useState<string | null>(null);
  const tokenRef = useRef(token);
  tokenRef.current = token;
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);

  const readToken = useCallback(() => tokenRef.current, []);
  const fileOpened = useCallback(() => setOpenFile(null), []);
  const browseOpened = useCallback(() => setBrowseTarget(null), []);
  const packageOpened = useCallback(() => setOpenPackage(null), []);

  /** Another view: the status line of the one left behind no longer applies. */
  const tabRef = useRef(tab);
  tabRef.current = tab;
  const show = useCallback((next: TabId) => {
    if (tabRef.current !== next) setStatus('');
    tabRef.current = next;
    setTab(next);
  }, []);
  /** The jobs view speaks in the status line only while it is the view shown. */
  const announceJobs = useCallback((text: string) => {
    if (tabRef.current === 'jobs') setStatus(text);
  }, []);
  const showPackage = useCallback(
    (target: string) => {
      setOpenPackage(target);
      show('package');
    },
    [show],
  );
  const showFiles = useCallback(
    (target: string) => {
      setBrowseTarget(target);
      show('explorer');
    },
    [show],
  );
  const api = useMemo(() => createApi(readToken), [readToken]);

  useEffect(() => {
    try {
      if (remember && token !== '') sessionStorage.setItem(TOKEN_KEY, token);
      else sessionStorage.removeItem(TOKEN_KEY);
    } catch {
      // Storage may be disabled; the token then lives in memory only, as by default.
    }
  }, [remember, token]);

  const openInventory = useCallback(
    (document: unknown, source: string) => {
      let opened = false;
      try {
        setInventory({ sbom: readCycloneDx(document), source });
        setInventoryProblem(null);
        opened = true;
      } catch (error) {
        setInventoryProblem(new Problem({ title: 'Not a CycloneDX document', detail: error instanceof DocumentError ? error.message : String(error), code: null }));
      }
      show('inventory');
      if (opened) setStatus(`Inventory from ${source} opened.`);
    },
    [show],
  );

  const openFileOf = useCallback(
    (file: File) => {
      file
        .text()
        .then((text) => openInventory(JSON.parse(text) as unknown, file.name))
        .catch((error: unknown) => {
          setInventoryProblem(new Problem({ title: 'Could not read the file', detail: error instanceof Error ? error.message : String(error), code: null }));
        });
    },
    [openInventory],
  );

  const onTabKey = (event: KeyboardEvent, index: number): void => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    const jump = event.key === 'Home' ? 0 : event.key === 'End' ? TABS.length - 1 : null;
    if (step === 0 && jump === null) return;
    event.preventDefault();
    const next = jump ?? (index + step + TABS.length) % TABS.length;
    const t = TABS[next];
    if (t) {
      show(t.id);
      tabs.current[next]?.focus();
    }
  };

  const panel = (id: TabId, content: ComponentChildren) => (
    <div id={`panel-${id}`} role="tabpanel" aria-labelledby={`tab-${id}`} hidden={tab !== id} data-testid={`panel-${id}`}>
      {content}
    </div>
  );

  return (
    <>
      <header class="top">
        <h1>pkgscope console</h1>
        <form class="token" onSubmit={(e) => e.preventDefault()}>
          <label for="token">Bearer token</label>
          <input id="token" data-testid="token" type="password" autocomplete="off" spellcheck={false} value={token} onInput={(e) => setToken(e.currentTarget.value)} aria-describedby="token-hint" />
          <label class="inline" for="remember-token">
            <input id="remember-token" data-testid="remember-token" type="checkbox" checked={remember} onChange={(e) => setRemember(e.currentTarget.checked)} /> Keep it for this tab
          </label>
          <p id="token-hint" class="hint">
            As printed by <code>pkgscope tokens create</code>. Sent only in request headers; kept in memory unless you tick the box (then in this tab's session storage until it closes).
          </p>
        </form>
      </header>
      <nav class="tabs" role="tablist" aria-label="Console sections">
        {TABS.map((t, i) => (
          <button
            key={t.id}
            ref={(el) => {
              tabs.current[i] = el;
            }}
            id={`tab-${t.id}`}
            role="tab"
            type="button"
            aria-selected={tab === t.id}
            aria-controls={`panel-${t.id}`}
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => show(t.id)}
            onKeyDown={(e) => onTabKey(e, i)}
          >
            {t.label}
          </button>
        ))}
      </nav>
      <p id="progress-status" data-testid="progress-status" role="status" aria-live="polite" class="status">
        {status}
      </p>
      <main>
        {panel('jobs', <JobsView token={readToken} onInventory={openInventory} announce={announceJobs} />)}
        {panel(
          'inventory',
          <>
            <ProblemBox problem={inventoryProblem} idPrefix="inventory-error" />
            <SbomView loaded={inventory} onFile={openFileOf} onPackage={showPackage} onFiles={showFiles} />
          </>,
        )}
        {panel('explorer', <ExplorerView api={api} open={openFile} onOpened={fileOpened} browse={browseTarget} onBrowsed={browseOpened} onPackage={showPackage} active={tab === 'explorer'} />)}
        {panel('package', <PackageView api={api} open={openPackage} onOpened={packageOpened} onFiles={showFiles} active={tab === 'package'} />)}
        {panel(
          'grep',
          <GrepView
            api={api}
            onOpen={(file) => {
              setOpenFile(file);
              show('explorer');
            }}
            active={tab === 'grep'}
          />,
        )}
        {panel('compare', <CompareView api={api} active={tab === 'compare'} />)}
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
