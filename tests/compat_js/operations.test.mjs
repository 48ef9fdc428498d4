// Every seed operation of the spec through REST JS's own request(), signed in as each
// portal's default administrator, with the refusals the service must answer in the
// envelope REST JS's error classes read. Tests run in order: the guest's calls come
// before it leaves the collaboration, and the host deletes it last.
import { test } from "node:test";
import assert from "node:assert/strict";

import { ArcGISRequestError, request } from "@esri/arcgis-rest-request";

import { admin, sharing, signIn } from "./portal.mjs";

const HQ = await signIn("hq");
const FIELD = await signIn("field");
const HOST = `${sharing("hq")}/portals/self`;
const GUEST = `${sharing("field")}/portals/self`;
const WORKSPACE = "collaborations/c1/workspaces/ws1";

const post = (url, params, authentication) => request(url, { params, authentication });

/** The call is refused with `messageCode` (or `code`), seen as an ArcGISRequestError. */
const refused = async (call, code) =>
  assert.rejects(call, (error) => {
    assert.ok(error instanceof ArcGISRequestError, `${error.name}: ${error.message}`);
    assert.equal(error.code, code, error.message);
    return true;
  });

test("createRole, setPrivileges, the roles listing, and a duplicate name refused", async () => {
  const made = await post(`${HOST}/createRole`, { name: "Surveyor", description: "Views" }, HQ);
  assert.equal(made.success, true);
  assert.equal(typeof made.id, "string");
  const privileges = JSON.stringify({ privileges: ["portal:user:joinGroup"] });
  const set = await post(`${HOST}/roles/${made.id}/setPrivileges`, { privileges }, HQ);
  assert.equal(set.success, true);
  const listing = await request(`${HOST}/roles`, {
    httpMethod: "GET",
    params: { returnPrivileges: true, num: 100 },
    authentication: HQ,
  });
  const surveyor = listing.roles.find((role) => role.id === made.id);
  assert.deepEqual(surveyor.privileges, ["portal:user:joinGroup"]);
  await refused(post(`${HOST}/createRole`, { name: "surveyor" }, HQ), "ROLE_1001");
  const unknown = JSON.stringify({ privileges: ["portal:user:flyKites"] });
  await refused(
    post(`${HOST}/roles/${made.id}/setPrivileges`, { privileges: unknown }, HQ),
    "ROLE_1003",
  );
});

test("updateuserrole and updateUserLevel (user and userName), ORG_1084 refused", async () => {
  const listing = await request(`${HOST}/roles`, { params: { num: 100 }, authentication: HQ });
  const surveyor = listing.roles.find((role) => role.name === "Surveyor");
  const assigned = await post(`${HOST}/updateuserrole`, { user: "alice", role: surveyor.id }, HQ);
  assert.equal(assigned.success, true);
  assert.equal((await post(`${HOST}/updateUserLevel`, { user: "alice", level: 1 }, HQ)).success, true);
  const raised = await post(`${HOST}/updateUserLevel`, { userName: "alice", level: 2 }, HQ);
  assert.equal(raised.success, true);
  const alice = await request(`${sharing("hq")}/community/users/alice`, { authentication: HQ });
  assert.equal(alice.roleId, surveyor.id);
  assert.equal(alice.level, "2");
  await refused(post(`${HOST}/updateUserLevel`, { user: "carol", level: 1 }, HQ), "ORG_1085");
  await post(`${HOST}/updateuserrole`, { user: "carol", role: surveyor.id }, HQ);
  await refused(post(`${HOST}/updateUserLevel`, { user: "carol", level: 1 }, HQ), "ORG_1084");
  // the reference's spelling of the path, as clients built from its pages send it
  const back = await post(`${HOST}/updateUserRole`, { user: "carol", role: "org_publisher" }, HQ);
  assert.equal(back.success, true);
});

test("a role still assigned is not deleted; once free it is", async () => {
  const listing = await request(`${HOST}/roles`, { params: { num: 100 }, authentication: HQ });
  const surveyor = listing.roles.find((role) => role.name === "Surveyor");
  await refused(post(`${HOST}/roles/${surveyor.id}/delete`, {}, HQ), "ROLE_1004");
  await post(`${HOST}/updateuserrole`, { user: "alice", role: "org_user" }, HQ);
  assert.equal((await post(`${HOST}/roles/${surveyor.id}/delete`, {}, HQ)).success, true);
});

test("the host updates a workspace and invalidates an invitation", async () => {
  const info = { name: "Field data", description: "Synced nightly", maxItemSizeInMB: 2048 };
  assert.equal((await post(`${HOST}/${WORKSPACE}/updateInfo`, info, HQ)).success, true);
  const invalid = await post(`${HOST}/collaborations/c1/invitations/inv1/invalidate`, {}, HQ);
  assert.equal(invalid.success, true);
  await refused(post(`${HOST}/${WORKSPACE}/updateInfo`, { name: "x".repeat(101) }, HQ), "COLL_1001");
  // the guest may not call a host operation
  await refused(post(`${GUEST}/${WORKSPACE}/updateInfo`, { name: "Mine" }, FIELD), "GWM_0003");
});

test("the guest sets its schedule and group link", async () => {
  const schedule = { startTime: Date.UTC(2027, 0, 1), interval: 12, repeatCount: -1 };
  assert.equal((await post(`${GUEST}/${WORKSPACE}/schedule/update`, schedule, FIELD)).success, true);
  const read = await request(`${GUEST}/${WORKSPACE}/schedule`, { authentication: FIELD });
  assert.equal(read.interval, 12);
  const link = {
    portalGroupId: "g1",
    enableRealtimeSync: true,
    copyFeatureServiceData: true,
    enableFeatureServiceBidirectionalSync: true,
  };
  assert.equal((await post(`${GUEST}/${WORKSPACE}/updatePortalGroupLink`, link, FIELD)).success, true);
  const oneWay = { ...link, copyFeatureServiceData: false };
  await refused(post(`${GUEST}/${WORKSPACE}/updatePortalGroupLink`, oneWay, FIELD), "COLL_1003");
  await refused(
    post(`${GUEST}/${WORKSPACE}/schedule/update`, { ...schedule, interval: 0 }, FIELD),
    "COLL_1002",
  );
});

test("a task run and an organization webhook are deleted", async () => {
  const runs = `${sharing("field")}/community/users/frank/tasks/t1/runs`;
  const deleted = await post(`${runs}/run-01/delete`, {}, FIELD);
  assert.deepEqual(deleted, { success: true, taskId: "t1", runId: "run-01" });
  await refused(post(`${runs}/run-01/delete`, {}, FIELD), "GWM_0006");
  assert.equal((await post(`${GUEST}/webhooks/w2/delete`, {}, FIELD)).success, true);
});

test("webhook settings on the admin root, and a value out of range refused", async () => {
  // REST JS looks a server up by `<server>/rest/info` before it hands a portal token to
  // it; the admin root is not such a server, so the token goes as a field, as a script
  // holding a token sends it.
  const url = `${admin("field")}/services/webhooks/settings`;
  const settings = {
    notificationAttempts: 4,
    notificationTimeOutInSeconds: 30,
    notificationElapsedTimeInSeconds: 6,
    numberOfFailures: 7,
    daysInPast: 9,
    token: FIELD.token,
  };
  const answer = await request(url, { params: settings });
  assert.equal(answer.status, "success");
  assert.equal(answer.numberOfFailures, 7);
  await refused(request(url, { params: { ...settings, daysInPast: 31 } }), 400);
});

test("the guest leaves, then the host deletes the collaboration", async () => {
  assert.equal((await post(`${GUEST}/collaborations/c1/removeParticipation`, {}, FIELD)).success, true);
  await refused(post(`${GUEST}/collaborations/c1/removeParticipation`, {}, FIELD), "GWM_0006");
  await refused(post(`${GUEST}/collaborations/c1/delete`, {}, FIELD), "GWM_0006");
  assert.equal((await post(`${HOST}/collaborations/c1/delete`, {}, HQ)).success, true);
});

test("a write sent as GET is refused with 405", async () => {
  await refused(
    request(`${HOST}/createRole`, { httpMethod: "GET", params: { name: "X" }, authentication: HQ }),
    "GWM_0007",
  );
});
