# Role-based access control over data shaped as
#   bindings:  [{"user": "alice", "roles": ["admin"]}]
#   roles:     {"admin": [{"action": "read", "resource": "*"}]}
# Resource patterns are globs with "*" matching any run of characters.
package library.rbac.v1

import rego.v1

user_roles(bindings, user) := {r | some b in bindings; b.user == user; some r in b.roles}

role_permissions(roles, role) := {p | some p in roles[role]}

user_permissions(bindings, roles, user) := {p |
	some role in user_roles(bindings, user)
	some p in role_permissions(roles, role)
}

allowed(bindings, roles, user, action, resource) if {
	some p in user_permissions(bindings, roles, user)
	p.action in {action, "*"}
	glob.match(p.resource, [], resource)
}
