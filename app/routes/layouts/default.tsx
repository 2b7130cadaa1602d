import { Outlet } from "react-router";
import { Footer } from "~/components/Footer";
import { Navbar } from "~/components/Navbar";

/** Draws no data of its own (app/server/page-cache.server.ts). */
export const handle = { pageCache: true };

export default function DefaultLayout() {
  return (
    <div className="flex min-h-screen flex-col">
      <Navbar />
      <main className="mx-auto w-full max-w-6xl flex-1 px-4 py-10">
        <Outlet />
      </main>
      <Footer />
    </div>
  );
}
