// The frame every staff page shares: skip link, site header with navigation and sign-out, one <main>.
import type { StaffPrincipal } from '../../../shared/staff/staff.use-cases';
import { html, type SafeHtml } from './html';

export const STYLESHEET_PATH = '/support/assets/staff.css';

export interface PageContext {
  staff?: StaffPrincipal;
  csrfToken?: string;
}

export function page(title: string, ctx: PageContext, body: SafeHtml): string {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title} · Data-import staff</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
<a class="skip-link" href="#main">Skip to main content</a>
<header class="site">
  <div class="bar">
    <span class="brand">Data-import staff</span>
    ${ctx.staff ? navigation(ctx.staff, ctx.csrfToken) : ''}
  </div>
</header>
<main id="main" tabindex="-1">
${body}
</main>
</body>
</html>
`.value;
}

function navigation(staff: StaffPrincipal, csrfToken: string | undefined): SafeHtml {
  return html`<nav aria-label="Staff pages">
      <ul>
        <li><a href="/support/">Support</a></li>
        <li><a href="/admin/queues">Queues${staff.role === 'support' ? ' (read-only)' : ''}</a></li>
      </ul>
    </nav>
    <div class="who">
      <span>Signed in as <strong>${staff.username}</strong> (${staff.role})</span>
      <form method="post" action="/logout">
        <input type="hidden" name="_csrf" value="${csrfToken ?? ''}">
        <button type="submit" class="link">Sign out</button>
      </form>
    </div>`;
}
