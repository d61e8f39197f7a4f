// Package soap is a generic SOAP 1.1 rpc/encoded codec with an HTTP server
// handler and an HTTP client call: the runtime of the code cmd/wsdlgen
// generates. Its source is cmd/wsdlgen/runtime, where it is maintained and
// tested; `wsdlgen -emit-runtime` copies it into gen/soap, which the
// generated service packages (gen/soapapi) import, so that generated code
// depends on no hand-written package outside gen/.
//
// It knows nothing of any particular service: a generated dispatch table
// (gen/soapapi) describes each operation overload as its input and output
// messages (part names and types, in order) plus an Invoke function that
// calls the typed implementation. The handler parses the envelope, picks the
// overload, decodes the parts into Go values of the declared types, calls
// Invoke and encodes the result parts, or answers a SOAP fault. A Caller
// does the reverse for a client: it encodes the input parts, POSTs them and
// decodes the output parts or the fault.
package soap

import (
	"context"
	"fmt"
	"reflect"
)

// Namespaces of SOAP 1.1 and XML Schema.
const (
	EnvelopeNamespace = "http://schemas.xmlsoap.org/soap/envelope/"
	EncodingNamespace = "http://schemas.xmlsoap.org/soap/encoding/"
	XSDNamespace      = "http://www.w3.org/2001/XMLSchema"
	XSINamespace      = "http://www.w3.org/2001/XMLSchema-instance"
)

// Type is the declared type of a message part or array item: an XML Schema
// built-in scalar (string, int, anyType, …) or, when Elem is set, a soapenc
// array of Elem.
type Type struct {
	Namespace string
	Name      string
	Elem      *Type
}

// String is the type's qualified name, for messages.
func (t *Type) String() string {
	if t == nil {
		return "<nil type>"
	}
	if t.Namespace == XSDNamespace {
		return "xsd:" + t.Name
	}
	return "{" + t.Namespace + "}" + t.Name
}

// IsArray reports whether t is a soapenc array.
func (t *Type) IsArray() bool { return t != nil && t.Elem != nil }

// scalarGoTypes maps the XML Schema built-ins the codec understands to the
// Go types their values decode into.
var scalarGoTypes = map[string]reflect.Type{
	"string":  reflect.TypeFor[string](),
	"int":     reflect.TypeFor[int32](),
	"long":    reflect.TypeFor[int64](),
	"boolean": reflect.TypeFor[bool](),
	"double":  reflect.TypeFor[float64](),
	"anyType": reflect.TypeFor[any](),
}

// GoType is the Go type a value of t decodes into: string, int32, int64,
// bool, float64 or any for scalars, a slice of the item's Go type for arrays.
func (t *Type) GoType() (reflect.Type, error) {
	if t == nil {
		return nil, fmt.Errorf("nil type")
	}
	if t.Elem != nil {
		elem, err := t.Elem.GoType()
		if err != nil {
			return nil, fmt.Errorf("array %s: %w", t, err)
		}
		return reflect.SliceOf(elem), nil
	}
	if t.Namespace != XSDNamespace {
		return nil, fmt.Errorf("type %s is neither an XML Schema built-in nor an array", t)
	}
	gt, ok := scalarGoTypes[t.Name]
	if !ok {
		return nil, fmt.Errorf("XML Schema type xsd:%s is not supported", t.Name)
	}
	return gt, nil
}

// Part is one part of a message.
type Part struct {
	Name string
	Type *Type
}

// Message is a WSDL message: its name and its parts in order.
type Message struct {
	Name  string
	Parts []Part
}

// Operation is one overload of a WSDL operation.
type Operation struct {
	// Name is the operation name shared by its overloads (the rpc wrapper
	// element of the request).
	Name string
	// Method is the Go method implementing this overload.
	Method string
	Input  Message
	Output Message
	// Invoke calls the implementation with one decoded value per input
	// part (of the part's GoType, in order) and returns one value per
	// output part.
	Invoke func(ctx context.Context, args []any) ([]any, error)
}

// FaultCode is the faultcode of a SOAP 1.1 fault (in the envelope namespace).
type FaultCode string

// The SOAP 1.1 fault codes this package produces.
const (
	FaultClient          FaultCode = "Client"
	FaultServer          FaultCode = "Server"
	FaultVersionMismatch FaultCode = "VersionMismatch"
	FaultMustUnderstand  FaultCode = "MustUnderstand"
)

// Fault is an error rendered as a SOAP fault. Implementations return a
// *Fault (possibly wrapped) to choose the fault code and message; any other
// error becomes a Server fault with a generic message.
type Fault struct {
	Code   FaultCode
	String string
	// Detail is optional text put into the fault's detail element.
	Detail string
}

func (f *Fault) Error() string {
	if f.Detail != "" {
		return fmt.Sprintf("soap %s fault: %s (%s)", f.Code, f.String, f.Detail)
	}
	return fmt.Sprintf("soap %s fault: %s", f.Code, f.String)
}

// ClientFault is a fault blaming the request.
func ClientFault(format string, args ...any) *Fault {
	return &Fault{Code: FaultClient, String: fmt.Sprintf(format, args...)}
}

// ServerFault is a fault blaming the service.
func ServerFault(format string, args ...any) *Fault {
	return &Fault{Code: FaultServer, String: fmt.Sprintf(format, args...)}
}
