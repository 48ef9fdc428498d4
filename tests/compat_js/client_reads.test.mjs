// Reads and writes REST JS's own helpers make beside orgctl's calls: a member's account
// (getUser, updateUser, getUserTags, invitations, notifications), the organization's
// settings and subscription, an item, group search, an app's access check, and the
// collaboration and webhook operations through request(). Each leaves the state as it
// found it, for the suites that run after this file.
import { test } from "node:test";
import assert from "node:assert/strict";

import {
  getItem,
  getPortalSettings,
  getUser,
  getUserInvitations,
  getUserNotifications,
  getUserTags,
  searchGroups,
  updateUser,
} from "@esri/arcgis-rest-portal";
import { request, validateAppAccess } from "@esri/arcgis-rest-request";

import { sharing, signIn } from "./portal.mjs";

const HQ = await signIn("hq");
const FIELD = await signIn("field");
const CAROL = await signIn("hq", "carol");
const GUEST = `${sharing("field")}/portals/self`;
const HOST = `${sharing("hq")}/portals/self`;

test("a member updates its account and reads it back with its tags", async () => {
  const updated = await updateUser({
    user: { username: "carol", description: "Publishes field maps", tags: "maps,field" },
    authentication: CAROL,
  });
  assert.equal(updated.success, true);
  const carol = await getUser({ username: "carol", authentication: CAROL });
  assert.equal(carol.description, "Publishes field maps");
  const tags = await getUserTags({ username: "carol", authentication: CAROL });
  assert.deepEqual(
    tags.tags.map((t) => t.tag),
    ["maps", "field"],
  );
  const invitations = await getUserInvitations({ authentication: CAROL });
  assert.deepEqual(invitations.userInvitations, []);
  const notifications = await getUserNotifications({ authentication: CAROL });
  assert.deepEqual(notifications.notifications, []);
});

test("settings, subscription, an item and group search", async () => {
  const settings = await getPortalSettings(undefined, { authentication: HQ });
  assert.ok(Array.isArray(settings.allowedRedirectUris));
  // getSubscriptionInfo is not among the package's exports; its request, as written.
  const subscription = await request(`${HOST}/subscriptionInfo`, { authentication: HQ });
  assert.equal(subscription.state, "active");
  const item = await getItem("carol-item-1", { authentication: CAROL });
  assert.equal(item.owner, "carol");
  const groups = await searchGroups({ q: "owner:carol", authentication: HQ });
  assert.deepEqual(groups.results, []);
});

test("an app's access check answers valid for a registered app", async () => {
  const access = await validateAppAccess(CAROL.token, "arcgisonline", sharing("hq"));
  assert.deepEqual(access, { valid: true, viewOnlyUserTypeApp: false });
});

test("participants, a paused and resumed job, a webhook switched off and on", async () => {
  const participants = await request(`${HOST}/collaborations/c1/participants`, {
    authentication: HQ,
  });
  assert.deepEqual(participants.participants.map((p) => p.collaborationRole).sort(), [
    "Guest",
    "Host",
  ]);
  const job = `${GUEST}/collaborations/c1/workspaces/ws1/schedule`;
  assert.equal((await request(`${job}/pause`, { authentication: FIELD })).success, true);
  const paused = await request(job, { httpMethod: "GET", authentication: FIELD });
  assert.equal(paused.state, "PAUSED");
  assert.equal((await request(`${job}/resume`, { authentication: FIELD })).success, true);
  const hook = `${GUEST}/webhooks/w1`;
  assert.equal((await request(`${hook}/deactivate`, { authentication: FIELD })).success, true);
  assert.equal((await request(hook, { authentication: FIELD })).isActive, false);
  assert.equal((await request(`${hook}/activate`, { authentication: FIELD })).success, true);
  assert.equal((await request(hook, { authentication: FIELD })).isActive, true);
});
