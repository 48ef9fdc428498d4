"""The reference Organization Administration Service (`orgctl serve`).

Several portals in one process, each under `/<urlKey>/sharing/rest/...` and
`/<urlKey>/admin/...`; every operation of the docs/rules.md (§4) with its rules (§3, §5, §7-§9),
the reads of docs/rules.md §A, persisted in SQLite. Modules: `app` (addressing, formats,
envelopes), `routes`, `auth` (tokens, capabilities), `params` (typed fields, paging),
`store` (sqlite3), `seed`/`boot` (state file), `clock`, `timeline` (schedules and
webhook deactivation), one module per resource group (`portal`, `roles`, `members`,
`collaborations`, `webhooks`, `tasks`), `control` (test hooks), `protocol` (HTTP) and
`guard` (request-head time limit, connection cap).

Decisions where the spec is silent (each also stated where it is implemented):

Protocol
- Sharing API errors answer HTTP 200 with `{"error": {code, messageCode, message,
  details}}`; the admin root answers HTTP 200 with `{"status": "error", "messages",
  "code"}`. A path outside any portal answers HTTP 404 with the envelope.
- GET on a write answers code 405; methods other than GET/HEAD/POST answer 405.
- Fields come from the query string and the form-encoded body (the body wins). Bodies
  over 1 MB answer 413, fields over 100,000 characters 400, non-UTF-8 fields 400,
  multipart bodies 400. A blank numeric or boolean field counts as omitted. A request
  line (path and query) over 64 KiB answers HTTP 414 with the envelope (code 414); a
  request head over 1 MB, 414 or 431 (`protocol`). A request head not whole within
  `--header-timeout` seconds answers HTTP 408, a connection refused at the cap with every
  held one busy HTTP 503 (`guard`), both with the envelope.
- A write that finds the database or disk full is refused whole: code 500, GWM_0501,
  nothing of it kept in memory or on disk (`store.StoreFull`).
- An operation or parameter the portal's deployment/release lacks answers code 400,
  messageCode GWM_0002, checked before the capability. Order of checks for a write:
  token, availability, resource lookup (404), capability (403), fields, rules.
- The `<portal_id>` of a path must be the portal's id or `self`; another id answers 404.
- Every answer carries `Date:` = the service clock (not the wall clock), since clients
  judge ages (task runs, schedules) by the portal's clock.
- messageCodes: the table in `errors`.
- Where clients and the vendor's reference disagree on the wire (docs/rules.md §B,
  `wire`): a path's fixed segments match in any case (`updateUserRole`); `userName`
  stands for `user`; `privileges` may be a single-quoted Python literal (ArcREST), with
  an `id` field that must name the path's role; any `referer` text binds a token; a
  schedule `startTime` below 10^11 reads as seconds and is refused (COLL_1002).
- Reads clients make first (`client_reads`): `community/self`, and the organization's
  user search at `portals/<pid>/users/search` and the reference's `portal/<pid>/...`.
  User objects carry a real organization's keys (`accounts`), `portals/self` too
  (`portal_profile`); the member listing keeps to the keys readers use.

Auth
- Tokens are random, stored (they survive a restart) and bound to one portal. Their
  lifetime runs in the client's time frame, the wall clock, whatever the state's clock
  says (`expires` = wall clock at issue + lifetime), and moving the service clock forward
  through control moves them as far (`auth`). `expiration` above 20,160 minutes is
  clamped to it.
  `client=referer` binds a token to its `referer` field, and a request presenting it
  must send that `Referer` header; `client=ip` binds it to the `ip` field, `requestip`
  (the default when `client` is omitted) to the address asking; a mismatch is 498.
  Passwords are kept as salted scrypt hashes (`passwords`), tokens as their SHA-256
  (`auth.token_key`); sign-ins lock after repeated failures (`signin`).
- A sign-in records the member's `lastLogin` (epoch ms, service clock; -1 until the
  first, or as the state file seeds it). A member seeded `disabled: true` cannot sign
  in: code 400, GWM_0009, "This account has been disabled." once the password matched
  (a wrong one answers as for anyone), as a disabled account is refused by real portals.
- org_admin holds every privilege of its platform, so any organization administrator
  passes "holds portal:admin:manageWebhooks"; org_publisher and org_user hold the user
  and publisher privileges (`auth`).
- updateUserLevel: organization administrators (role org_admin) only.
- updateuserrole: org_admin or a holder of portal:admin:changeUserRoles; promoting to or
  demoting from org_admin needs org_admin; the last org_admin member's role cannot
  change (ORG_1090); a level-1 member may only get a custom role.
- createRole, setPrivileges, role update/delete: a default administrator, i.e. any
  member assigned the built-in Administrator role (org_admin; docs/rules.md §5).
- Host operations (delete, updateInfo, invalidate, importInvitationResponse): an
  org_admin of the host; guest operations (schedule update, updatePortalGroupLink,
  removeParticipation): an org_admin of a guest. Called from the other side: 403
  saying only the host (guest) administrator may call it.
- Webhook settings and webhook delete: a default administrator or a holder of
  portal:admin:manageWebhooks. Task run delete: the task owner or an org_admin.
- Reads need a token of the portal (not `portals/languages`); `content/users/<u>` and a
  member's tasks are visible to the member and org_admins; item resources to the owner
  of a task using the item and org_admins. A member (`community/users/<u>`, the user
  searches) shows its whole account to itself, org_admins and viewUsers holders, its
  public profile to viewOrgUsers holders unless its `access` is private, and otherwise
  answers as an unknown member: code 400, "User does not exist or is inaccessible."
  (`visibility`). 403 is GWM_0003 in the vendor's words, who may in `details`.
  The Portal Administrator API's licenses (`portaladmin/system/licenses` to 10.6.1,
  `portaladmin/license` from 10.7) answer the state's `levelQuotas` in the vendor's
  shapes (`licenses`).

Rules
- Level change (target differs from the current level), in order: level 1 needs a
  custom role (ORG_1085); the quota at the target level, counting the members already
  at it (ORG_1086); owned items or groups block level 1 (ORG_1084, as docs/rules.md §3 lists it
  for level 1 only); licenses for apps disallowed at the target level (ORG_1087).
- Role names are unique per portal, case-insensitively; a role assigned to members or
  seeded `editable: false` cannot be deleted; the latter cannot be changed either.
- Workspace sizes must be numbers from 0 to 1 TiB (in MB); `config` (only before 10.6)
  must be a JSON object. Schedules: startTime up to year 9999, interval up to 8,760
  hours, repeatCount up to 2^31-1 (`collaborations`). Names refuse control and bidi
  formatting characters (`text`).
- updatePortalGroupLink keeps the link's omitted fields, except
  enableFeatureServiceBidirectionalSync, whose omission means its default false.
- copyFeatureServiceData before 10.7 copies feature services but not hosted feature
  layer views (docs/rules.md §9). The service holds no items, so the difference cannot be seen
  here; the planner warns about it instead.
- Webhook settings: an omitted field keeps its value (`webhooks` says why). The
  organization webhooks' reads answer GWM_0002 before 10.7, the settings read before
  11.2, as their operations do.
- importInvitationResponse sets the invitation to `guest_accepted` and adds the guest.

Time
- The clock is persisted and stands still unless `/_control/clock` moves it (seeded by
  the state's `clock`, else the real time at seeding), so behaviour is reproducible.
- A schedule fires at startTime, then every `interval` hours, `repeatCount` more times;
  a finite job is deleted at its last trigger (its read answers code 404).
- Sign-in locks run on real time, not on this clock (`lockout`): a clock that stands
  still must not lock a member out for ever; a control move forward moves them too.
- A deleted collaboration leaves a guest at the guest's next schedule trigger after the
  deletion (any workspace of the collaboration); a guest with no schedule left drops it
  at the next UTC midnight after the deletion.
- Control: `advanceHours` from 0 to a century (the clock never goes back that way);
  `now` may set any time from 1970 to 9000; `failures` takes `count` 0..10,000
  (default 1); control paths answer real HTTP 404 when `--control` is off, and HTTP
  401 (code 401, GWM_0401) without `Authorization: Bearer <the control secret>`.
- Service webhook failures count in fixed, back-to-back windows of `daysInPast` UTC
  calendar days: the first starts on the day of the first failure, each next one the day
  after the last ends (docs/rules.md §3), so a failure on day 8 of a 5-day policy counts in the
  window of days 6-10. The policy in force when a failure is recorded applies.
"""

from orgctl_service.app import create_app
from orgctl_service.boot import open_world
from orgctl_service.seed import declares_clock
from orgctl_service.tls import TlsFiles, make_local_certificate, user_certificate

__all__ = [
    "TlsFiles",
    "create_app",
    "declares_clock",
    "make_local_certificate",
    "open_world",
    "user_certificate",
]
