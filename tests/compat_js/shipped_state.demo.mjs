// Tokens on the demo world as shipped (examples/demo/state.yaml), whose clock stands at
// 2026-11-01: the client judges a token by `expires` against its own clock, so an
// `expires` on the state's clock made every token look expired at once.
import { test } from "node:test";
import assert from "node:assert/strict";

import { ArcGISIdentityManager } from "@esri/arcgis-rest-request";
import { getUser } from "@esri/arcgis-rest-portal";

import { sharing, signIn } from "./portal.mjs";

test("a signed-in manager keeps its token instead of signing in before each request", async () => {
  const manager = await signIn("hq");
  assert.ok(manager.tokenExpires.getTime() > Date.now(), `${manager.tokenExpires}`);
  const token = manager.token;
  const alice = await getUser({ username: "alice", authentication: manager });
  assert.equal(alice.username, "alice");
  assert.equal(manager.token, token, "the manager signed in again");
});

test("fromToken signs in with a token issued before", async () => {
  const first = await signIn("hq");
  const manager = await ArcGISIdentityManager.fromToken({
    token: first.token,
    tokenExpires: first.tokenExpires,
    portal: sharing("hq"),
  });
  assert.equal(manager.username, "admin");
  const erin = await getUser({ username: "erin", authentication: manager });
  assert.equal(erin.level, "1");
});
