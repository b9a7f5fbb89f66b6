import { headers } from "next/headers";
import Link from "next/link";

/**
 * Any URL no page answers: HTTP 404 inside the app's frame (the sidebar and its navigation stay).
 * Rendered per request, not prerendered: the pages run under a nonce CSP (proxy.ts), and a page
 * built ahead of time has scripts without this request's nonce, which the browser refuses (the
 * navigation would not work and the console would fill with CSP errors).
 */
export default async function NotFound() {
  await headers();
  return (
    <div className="p-8" data-testid="not-found">
      <h1 className="text-xl font-semibold">Page not found</h1>
      <p className="mt-2 text-sm text-zinc-600">Nothing lives at this address. It may have been mistyped, or the page has moved.</p>
      <p className="mt-4 text-sm">
        <Link className="underline" href="/tasks">
          All tasks
        </Link>
      </p>
    </div>
  );
}
