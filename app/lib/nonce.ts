import { createContext, useContext } from "react";

/** The CSP nonce of the current document (server only; browsers hide it from the DOM). */
const NonceContext = createContext("");
export const NonceProvider = NonceContext.Provider;
export const useNonce = () => useContext(NonceContext);
