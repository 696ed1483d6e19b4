# Helpers for authorizing HTTP API requests. Input shapes follow the common
# Envoy / API-gateway layout: method, path and headers of the request.
package library.http_api.v1

import rego.v1

# The bearer token of an Authorization header value (scheme case-insensitive).
bearer_token(authorization) := token if {
	parts := split(trim_space(authorization), " ")
	count(parts) == 2
	lower(parts[0]) == "bearer"
	token := parts[1]
}

# The non-empty segments of a URL path, without the query string.
path_segments(path) := [s | some s in split(split(path, "?")[0], "/"); s != ""]

# A path matches a pattern of segments where "*" matches one segment and
# "**" as the last pattern segment matches the rest.
path_matches(pattern, path) if {
	p := path_segments(pattern)
	s := path_segments(path)
	count(p) == count(s)
	every i, seg in p {
		segment_matches(seg, s[i])
	}
}

path_matches(pattern, path) if {
	p := path_segments(pattern)
	p[count(p) - 1] == "**"
	s := path_segments(path)
	n := count(p) - 1
	count(s) >= n
	every i, seg in array.slice(p, 0, n) {
		segment_matches(seg, s[i])
	}
}

segment_matches("*", _) := true

segment_matches(seg, actual) if {
	seg != "*"
	seg == actual
}

read_methods := {"GET", "HEAD", "OPTIONS"}

method_is_read(method) if upper(method) in read_methods

method_allowed(allowed, method) if upper(method) in {upper(m) | some m in allowed}

# The (unverified) payload of a JWT, for routing decisions only.
jwt_payload(token) := payload if {
	[_, payload, _] := io.jwt.decode(token)
}
