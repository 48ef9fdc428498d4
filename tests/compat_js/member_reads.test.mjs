// Member reads as a real portal answers them: an unknown member, a colleague read by a
// member who is no administrator, an OR search, another portal's id.
import { test } from "node:test";
import assert from "node:assert/strict";

import { ArcGISRequestError } from "@esri/arcgis-rest-request";
import { getPortal, getUser, searchUsers } from "@esri/arcgis-rest-portal";

import { signIn } from "./portal.mjs";

test("getUser of an unknown member fails as a real portal's does", async () => {
  const manager = await signIn("hq");
  await assert.rejects(getUser({ username: "nobody", authentication: manager }), (error) => {
    assert.ok(error instanceof ArcGISRequestError, error.name);
    assert.equal(error.response.error.code, 400);
    assert.equal(error.response.error.message, "User does not exist or is inaccessible.");
    return true;
  });
});

test("a member reads a colleague's profile, not the account", async () => {
  const alice = await signIn("hq", "alice");
  const carol = await getUser({ username: "carol", authentication: alice });
  assert.equal(carol.username, "carol");
  assert.equal(carol.orgId, "0123456789abcdef");
  for (const key of ["role", "level", "lastLogin", "disabled", "privileges"]) {
    assert.equal(carol[key], undefined, key);
  }
});

test("searchUsers joins terms with OR, as a real organization answers", async () => {
  const manager = await signIn("hq");
  const q = "role:org_admin OR role:org_publisher";
  const found = await searchUsers({ q, authentication: manager });
  assert.equal(found.query, q);
  assert.deepEqual(found.results.map((u) => u.username), ["admin", "carol"]);
});

test("getPortal of another portal's id is not this portal", async () => {
  const manager = await signIn("hq");
  await assert.rejects(getPortal("fedcba9876543210", { authentication: manager }), (error) => {
    assert.ok(error instanceof ArcGISRequestError, error.name);
    assert.equal(error.response.error.code, 404);
    return true;
  });
});
