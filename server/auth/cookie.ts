/** Cookie name prefix: cookies are `longhaul.session_token` (`__Secure-longhaul.…` over https). */
export const COOKIE_PREFIX = "longhaul";
