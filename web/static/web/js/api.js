// The JSON API from the browser: session cookie, CSRF header on writes, errors as ApiError.

export class ApiError extends Error {
  constructor(status, body) {
    const error = (body && body.error) || {};
    super(error.message || `the server answered ${status}`);
    this.status = status;
    this.code = error.code;
    this.details = error.details;
  }
}

function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const init = { method, headers, credentials: "same-origin" };
  if (method !== "GET") {
    headers["Content-Type"] = "application/json";
    headers["X-CSRFToken"] = csrfToken();
    init.body = JSON.stringify(body ?? {});
  }
  let response;
  try {
    response = await fetch(`/api/v1/${path}`, init);
  } catch (exc) {
    throw new ApiError(0, { error: { message: "the server cannot be reached: check the connection and try again" } });
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

export const get = (path) => api("GET", path);
export const post = (path, body) => api("POST", path, body);

/** Text for a node: never innerHTML with server data. */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "text") node.textContent = value;
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}
