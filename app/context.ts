import { createContext } from "react-router";

/** The connecting client's IP address, set by the HTTP server for every request. */
export const clientAddressContext = createContext<string | null>(null);
