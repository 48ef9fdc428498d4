"""Policies: an organization's own rules, in CEL, judged on effective access.

`variables` says what a rule sees of each subject (a member, a role, the portal, a
planned change) before and after a plan; `rules` compiles and checks a rule offline;
`verdicts` evaluates every policy on both states and says which violations a plan
introduces, keeps or cures; `builtin` holds the policies orgctl ships (the default
administrator check), judged on every plan.
"""
