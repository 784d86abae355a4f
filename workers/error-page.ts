/**
 * The last resort when even the error page fails (a broken bundle, D1 unreachable before routing): no scripts, no
 * styles, no data. Its own module: the Worker's main module may export only handlers (a string there stops workerd).
 */
export const ERROR_500_HTML =
  '<!DOCTYPE html><html lang="en-US"><head><meta charset="utf-8"><title>Baseline</title></head><body><main><h1>500</h1><p>Something went wrong. Please try again later.</p><p><a href="/dashboard">Go to Dashboard</a></p></main></body></html>';
