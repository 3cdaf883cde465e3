/** The store's public surface: import from 'main/store'. */
export { openStore, Store, type StoreOptions, type ImportedRun } from './store';
export { defaultDbPath, openDatabase, BUSY_TIMEOUT_MS } from './db';
export { StoreError, type StoreErrorCode } from './errors';
export { migrate, schemaVersion, MIGRATIONS, LATEST_VERSION } from './migrations';
export { EventWriter, DEFAULT_FLUSH_MS, type EventWriterOptions } from './event-writer';
export { DEFAULT_EVENT_CAP } from './events';
export type { RunStart, RunOutcome } from './runs';
export type { BenchmarkInput, BenchmarkConfigInput } from './benchmarks';
export { median, spread, digestsAgree, findSlowdowns, SLOWDOWN_THRESHOLD } from './bench-stats';
export { compareRuns, jsonDiff, type RunDetail } from './compare';
export { machineFingerprint, localMachineInfo, type MachineInfo } from './fingerprint';
export { exportRuns, exportWorkflow, writeExportFile, readExportFile, parseExport, importExport, importExportFile, type ImportReport } from './transfer';
export { EXPORT_FORMAT, type ExportDoc } from './transfer-schema';
