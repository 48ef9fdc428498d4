// Where the service under test is and who signs in: the pytest module
// (test_rest_js.py) starts `orgctl serve --tls` with tests/compat/state.yaml and passes
// its address in ORGCTL_SERVICE_URL; NODE_EXTRA_CA_CERTS names the CA it printed.
import { ArcGISIdentityManager } from "@esri/arcgis-rest-request";

export const SERVICE = process.env.ORGCTL_SERVICE_URL;
if (!SERVICE) {
  throw new Error("ORGCTL_SERVICE_URL is not set: run this suite through pytest");
}

/** The sharing REST root of a portal of the state (`hq`, `field`). */
export const sharing = (key) => `${SERVICE}/${key}/sharing/rest`;

/** Its admin root (the webhook settings live there). */
export const admin = (key) => `${SERVICE}/${key}/admin`;

/** Sign in as a Node script does: username and password, generateToken behind it. */
export const signIn = (key, username = "admin", password = `${username}-pass`) =>
  ArcGISIdentityManager.signIn({ username, password, portal: sharing(key) });
