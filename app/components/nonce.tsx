import { createContext, useContext } from "react";

/**
 * The response's Content-Security-Policy nonce, provided by entry.server from the load context. Every
 * inline or Remix-rendered script carries it (workers/security-headers.ts); in the browser it is empty,
 * as the browser hides a nonce from the page once it has been checked.
 */
const NonceContext = createContext("");

export const NonceProvider = NonceContext.Provider;

export function useNonce(): string {
  return useContext(NonceContext);
}
