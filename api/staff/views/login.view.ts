// The sign-in page and the sign-out confirmation (bull-board links here; signing out is a POST).
import { html } from './html';
import { page, type PageContext } from './layout';

export function loginPage(opts: { csrfToken: string; next?: string; error?: string; username?: string }): string {
  return page(
    'Sign in',
    {},
    html`<h1>Sign in</h1>
<div class="panel narrow">
  ${opts.error ? html`<p class="message error" role="alert" id="login-error">${opts.error}</p>` : ''}
  <form method="post" action="/login" class="stack">
    <input type="hidden" name="_csrf" value="${opts.csrfToken}">
    ${opts.next ? html`<input type="hidden" name="next" value="${opts.next}">` : ''}
    <label for="username">Username</label>
    <input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required
      value="${opts.username ?? ''}"${opts.error ? html` aria-describedby="login-error"` : ''}>
    <label for="password">Password</label>
    <input type="password" id="password" name="password" autocomplete="current-password" required>
    <p><button type="submit">Sign in</button></p>
  </form>
</div>`,
  );
}

export function logoutPage(ctx: PageContext): string {
  return page(
    'Sign out',
    ctx,
    html`<h1>Sign out</h1>
<form method="post" action="/logout" class="panel narrow">
  <input type="hidden" name="_csrf" value="${ctx.csrfToken ?? ''}">
  <p>Sign out of the staff pages on this browser?</p>
  <p><button type="submit">Sign out</button></p>
</form>`,
  );
}

const TITLES: Record<number, string> = {
  400: 'Invalid request',
  403: 'Not allowed',
  404: 'Not found',
  429: 'Too many attempts',
};

export function errorPage(ctx: PageContext, status: number, message: string): string {
  const title = TITLES[status] ?? 'Something went wrong';
  return page(
    title,
    ctx,
    html`<h1>${title}</h1>
<p class="message error" role="alert">${message}</p>
<p><a href="/support/">Back to the support page</a></p>`,
  );
}
