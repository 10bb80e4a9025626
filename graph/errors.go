// Package graph is the domain of the compliance service: its types, the
// service interfaces the adapters implement, and the one error vocabulary
// that every transport maps to its own status codes.
//
// graph and its engine packages import no database driver, no gqlgen and no
// net/http handler: adapters (graphdb, relational) implement the interfaces
// declared here, and transports (rest, resolvers) call them.
package graph

import (
	"errors"
	"fmt"
)

// Code is one word of the service's error vocabulary. rest maps each code to
// an HTTP status in one table; resolvers maps it to extensions.code.
type Code string

// The error vocabulary. Every error a client sees carries one of these codes.
const (
	CodeInvalid         Code = "invalid"          // bad input; the field is named
	CodeInvalidParam    Code = "invalid_param"    // unknown value of an enumerated parameter (the spec's word)
	CodeUnauthenticated Code = "unauthenticated"  // missing, unknown, revoked or expired key
	CodeForbidden       Code = "forbidden"        // key lacks the scope, or the object is not the caller's
	CodeNotFound        Code = "not_found"        // unknown id or slug
	CodeConflict        Code = "conflict"         // state does not allow the change
	CodeRateLimited     Code = "rate_limited"     // rate limit or quota exhausted
	CodePaymentRequired Code = "payment_required" // plan does not include the call
	CodeUnavailable     Code = "unavailable"      // a dependency is down or not configured
	CodeInternal        Code = "internal"         // a fault of ours; details are logged, never shown
)

// Error is an error with a code from the vocabulary, a message safe to show
// to a client, and the input field it concerns, if any.
type Error struct {
	Code    Code
	Field   string         // the offending input field, "" when none
	Message string         // safe to show to a client
	Details map[string]any // optional structured details, safe to show
	Err     error          // the underlying cause; logged, never shown
}

func (e *Error) Error() string {
	msg := e.Message
	if e.Field != "" && msg == "" {
		msg = e.Field + " is invalid"
	}
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, msg, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns an invalid-input error naming field.
func Invalid(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Internal wraps err as an internal error. Its message is generic; err is
// kept for the log only.
func Internal(err error) *Error {
	return &Error{Code: CodeInternal, Message: "internal error", Err: err}
}

// Unavailable wraps err as an unavailable-dependency error with a message
// safe to show (it names the dependency, not the cause).
func Unavailable(what string, err error) *Error {
	return &Error{Code: CodeUnavailable, Message: what + " is unavailable", Err: err}
}

// ErrorCode returns the code of err: the code of the first *Error in its
// chain, or CodeInternal when there is none. ErrorCode(nil) is "".
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// AsError returns the first *Error in err's chain, or an internal error
// wrapping err when there is none. AsError(nil) is nil.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal(err)
}
