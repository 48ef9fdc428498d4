// Signing in as users do and the reads a script makes first: community/self (every
// sign-in), portals/self, the organization's user search, one member.
import { test } from "node:test";
import assert from "node:assert/strict";

import {
  ArcGISIdentityManager,
  ArcGISAuthError,
  ArcGISTokenRequestError,
  request,
} from "@esri/arcgis-rest-request";
import { getSelf, getPortal, getUser, searchUsers } from "@esri/arcgis-rest-portal";

import { sharing, signIn } from "./portal.mjs";

test("signIn with a password reads community/self and names the member", async () => {
  const manager = await signIn("hq");
  assert.equal(manager.username, "admin");
  const me = await manager.getUser();
  assert.equal(me.username, "admin");
  assert.equal(me.role, "org_admin");
  assert.equal(me.level, "2");
  assert.ok(me.privileges.includes("portal:admin:manageRoles"));
  assert.ok(manager.tokenExpires.getTime() > Date.now());
});

test("fromToken signs in with a token issued before", async () => {
  const first = await signIn("field");
  const manager = await ArcGISIdentityManager.fromToken({
    token: first.token,
    tokenExpires: first.tokenExpires,
    portal: sharing("field"),
  });
  assert.equal(manager.username, "admin");
  const frank = await getUser({ username: "frank", authentication: manager });
  assert.equal(frank.username, "frank");
  assert.equal(frank.role, "org_user");
  assert.equal(frank.roleId, undefined, "a built-in role carries no roleId");
});

test("a wrong password is refused as a token request error", async () => {
  await assert.rejects(signIn("hq", "admin", "wrong"), (error) => {
    assert.ok(error instanceof ArcGISTokenRequestError, error.name);
    assert.equal(error.code, "TOKEN_REFRESH_FAILED");
    // as a real portal answers it: the reason is in `details`
    assert.match(error.response.error.details.join(" "), /invalid username or password/i);
    return true;
  });
});

test("a token from another portal is an auth error naming GWM_0004", async () => {
  const field = await signIn("field");
  await assert.rejects(
    ArcGISIdentityManager.fromToken({ token: field.token, portal: sharing("hq") }),
    (error) => {
      assert.ok(error instanceof ArcGISAuthError, error.name);
      assert.equal(error.code, "GWM_0004");
      return true;
    },
  );
});

test("reads without a token are refused with 499", async () => {
  await assert.rejects(request(`${sharing("hq")}/portals/self/roles`), (error) => {
    assert.ok(error instanceof ArcGISAuthError, error.name);
    assert.equal(error.code, "GWM_0003");
    assert.equal(error.response.error.code, 499);
    return true;
  });
});

test("a GET with hideToken sends the token in X-Esri-Authorization", async () => {
  const manager = await signIn("hq");
  const roles = await request(`${sharing("hq")}/portals/self/roles`, {
    httpMethod: "GET",
    hideToken: true,
    authentication: manager,
  });
  assert.ok(roles.roles.some((role) => role.name === "Viewer"));
});

test("getSelf and getPortal read portals/self", async () => {
  const manager = await signIn("hq");
  const self = await getSelf({ authentication: manager });
  assert.equal(self.id, "0123456789abcdef");
  assert.equal(self.isPortal, true);
  assert.equal(self.fullVersion, "10.6.1");
  assert.equal(self.user.username, "admin");
  const byId = await getPortal("0123456789abcdef", { authentication: manager });
  assert.equal(byId.name, "Headquarters");
  const cached = await manager.getPortal();
  assert.equal(cached.id, self.id);
});

test("searchUsers finds members by word, field and role, and pages", async () => {
  const manager = await signIn("hq");
  const byWord = await searchUsers({ q: "ali", authentication: manager });
  assert.deepEqual(byWord.results.map((u) => u.username), ["alice"]);
  assert.equal(byWord.results[0].level, "2");
  assert.equal(typeof byWord.results[0].availableCredits, "number");
  const byRole = await searchUsers({ q: "role:org_publisher", authentication: manager });
  assert.deepEqual(byRole.results.map((u) => u.username), ["carol"]);
  const firstPage = await searchUsers({ q: "*", num: 3, authentication: manager });
  assert.equal(firstPage.total, 4);
  assert.deepEqual(firstPage.results.map((u) => u.username), ["admin", "alice", "bob"]);
  assert.equal(typeof firstPage.nextPage, "function");
});
