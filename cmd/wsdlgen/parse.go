package main

import (
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/hooklift/gowsdl"
)

const (
	xsdNamespace      = "http://www.w3.org/2001/XMLSchema"
	encodingNamespace = "http://schemas.xmlsoap.org/soap/encoding/"
	wsdlNamespace     = "http://schemas.xmlsoap.org/wsdl/"
)

// service is what the generator needs from a WSDL.
type service struct {
	Name, Port, Binding, PortType string
	TargetNamespace               string
	Address                       string // soap:address location
	RequestNamespace              string // input soap:body namespace
	ResponseNamespace             string // output soap:body namespace
	Types                         []*xmlType
	Operations                    []*operation
}

// xmlType is a part type: a built-in (Namespace = XSD) or a soapenc array.
type xmlType struct {
	Namespace, Name string
	Elem            *xmlType
}

type part struct {
	Name string
	Type *xmlType
}

type message struct {
	Name  string
	Parts []part
}

type operation struct {
	Name           string
	Input, Output  message
	Method         string // Go method name
	RequestStruct  string
	ResponseStruct string
}

// arraySchema is the part of an XML Schema that gowsdl's XSD types leave
// out: complexContent restrictions of soapenc:Array and their
// wsdl:arrayType attribute, which is how rpc/encoded WSDLs declare arrays.
type arraySchema struct {
	Schemas []struct {
		TargetNamespace string `xml:"targetNamespace,attr"`
		ComplexTypes    []struct {
			Name        string `xml:"name,attr"`
			Restriction struct {
				Base       string `xml:"base,attr"`
				Attributes []struct {
					Ref       string `xml:"ref,attr"`
					ArrayType string `xml:"http://schemas.xmlsoap.org/wsdl/ arrayType,attr"`
				} `xml:"attribute"`
			} `xml:"complexContent>restriction"`
		} `xml:"complexType"`
	} `xml:"types>schema"`
}

func parseService(raw []byte) (*service, error) {
	var w gowsdl.WSDL
	if err := xml.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("parsing the WSDL: %w", err)
	}
	var arrays arraySchema
	if err := xml.Unmarshal(raw, &arrays); err != nil {
		return nil, fmt.Errorf("parsing the WSDL's schema: %w", err)
	}
	resolve := func(qname string) (ns, local string, err error) {
		prefix, local, ok := strings.Cut(qname, ":")
		if !ok {
			return "", qname, fmt.Errorf("QName %q has no prefix", qname)
		}
		ns, known := w.Xmlns[prefix]
		if !known {
			return "", local, fmt.Errorf("QName %q: unknown prefix %q", qname, prefix)
		}
		return ns, local, nil
	}
	if len(w.Service) != 1 || len(w.Service[0].Ports) != 1 {
		return nil, fmt.Errorf("want exactly one service with one port")
	}
	if len(w.Binding) != 1 || len(w.PortTypes) != 1 {
		return nil, fmt.Errorf("want exactly one binding and one port type")
	}
	svc := &service{
		Name:            w.Service[0].Name,
		Port:            w.Service[0].Ports[0].Name,
		Binding:         w.Binding[0].Name,
		PortType:        w.PortTypes[0].Name,
		TargetNamespace: w.TargetNamespace,
		Address:         w.Service[0].Ports[0].SOAPAddress.Location,
	}
	b := w.Binding[0]
	if b.SOAPBinding.Style != "rpc" {
		return nil, fmt.Errorf("binding %s: style %q, want rpc", b.Name, b.SOAPBinding.Style)
	}
	if _, local, err := resolve(b.Type); err != nil || local != svc.PortType {
		return nil, fmt.Errorf("binding %s is not of port type %s", b.Name, svc.PortType)
	}

	// Types: built-ins and the soapenc arrays declared in the schema.
	types := map[string]*xmlType{}
	key := func(ns, local string) string { return "{" + ns + "}" + local }
	arrayItems := map[string]string{} // array type key -> item QName
	for _, s := range arrays.Schemas {
		for _, ct := range s.ComplexTypes {
			for _, a := range ct.Restriction.Attributes {
				if a.ArrayType != "" {
					arrayItems[key(s.TargetNamespace, ct.Name)] = a.ArrayType
				}
			}
		}
	}
	// gowsdl's view of the schema must agree on which complex types exist.
	declared := map[string]bool{}
	for _, s := range w.Types.Schemas {
		for _, ct := range s.ComplexTypes {
			declared[key(s.TargetNamespace, ct.Name)] = true
		}
	}
	var typeOf func(qname string, depth int) (*xmlType, error)
	typeOf = func(qname string, depth int) (*xmlType, error) {
		if depth > 8 {
			return nil, fmt.Errorf("type %s: arrays nested too deep", qname)
		}
		ns, local, err := resolve(qname)
		if err != nil {
			return nil, err
		}
		k := key(ns, local)
		if t, ok := types[k]; ok {
			return t, nil
		}
		t := &xmlType{Namespace: ns, Name: local}
		switch {
		case ns == xsdNamespace:
			switch local {
			case "string", "int", "long", "boolean", "double", "anyType":
			default:
				return nil, fmt.Errorf("type %s is not supported", qname)
			}
		case declared[k]:
			item, ok := arrayItems[k]
			if !ok {
				return nil, fmt.Errorf("type %s is not a soapenc array (only arrays are supported)", qname)
			}
			item, found := strings.CutSuffix(item, "[]")
			if !found {
				return nil, fmt.Errorf("type %s: arrayType %q is not a one-dimensional array", qname, arrayItems[k])
			}
			if t.Elem, err = typeOf(item, depth+1); err != nil {
				return nil, fmt.Errorf("items of %s: %w", qname, err)
			}
		default:
			return nil, fmt.Errorf("type %s is not declared", qname)
		}
		types[k] = t
		svc.Types = append(svc.Types, t)
		return t, nil
	}

	messages := map[string]*gowsdl.WSDLMessage{}
	for _, m := range w.Messages {
		messages[m.Name] = m
	}
	readMessage := func(qname string) (message, error) {
		_, local, err := resolve(qname)
		if err != nil {
			return message{}, err
		}
		m, ok := messages[local]
		if !ok {
			return message{}, fmt.Errorf("message %s is not declared", qname)
		}
		out := message{Name: m.Name}
		for _, p := range m.Parts {
			if p.Type == "" {
				return message{}, fmt.Errorf("message %s, part %s: rpc/encoded parts need a type", m.Name, p.Name)
			}
			t, err := typeOf(p.Type, 0)
			if err != nil {
				return message{}, fmt.Errorf("message %s, part %s: %w", m.Name, p.Name, err)
			}
			out.Parts = append(out.Parts, part{Name: p.Name, Type: t})
		}
		return out, nil
	}

	// Binding operations, matched to port type operations by name and
	// input name (overloads share the name).
	type bindingKey struct{ op, input string }
	bound := map[bindingKey]*gowsdl.WSDLOperation{}
	for _, op := range b.Operations {
		bound[bindingKey{op.Name, op.Input.Name}] = op
	}
	overloadCount := map[string]int{}
	for _, op := range w.PortTypes[0].Operations {
		overloadCount[op.Name]++
	}
	methods := map[string]bool{}
	for _, pop := range w.PortTypes[0].Operations {
		bop, ok := bound[bindingKey{pop.Name, pop.Input.Name}]
		if !ok {
			return nil, fmt.Errorf("operation %s (input %s) is not in binding %s", pop.Name, pop.Input.Name, b.Name)
		}
		if bop.SOAPOperation.Style != "" && bop.SOAPOperation.Style != "rpc" {
			return nil, fmt.Errorf("operation %s: style %q, want rpc", pop.Name, bop.SOAPOperation.Style)
		}
		for _, body := range []gowsdl.WSDLSOAPBody{bop.Input.SOAPBody, bop.Output.SOAPBody} {
			if body.Use != "encoded" || body.EncodingStyle != encodingNamespace {
				return nil, fmt.Errorf("operation %s: soap:body use %q encodingStyle %q, want encoded with the SOAP encoding", pop.Name, body.Use, body.EncodingStyle)
			}
		}
		if err := agree(&svc.RequestNamespace, bop.Input.SOAPBody.Namespace, "input namespace of "+pop.Name); err != nil {
			return nil, err
		}
		if err := agree(&svc.ResponseNamespace, bop.Output.SOAPBody.Namespace, "output namespace of "+pop.Name); err != nil {
			return nil, err
		}
		in, err := readMessage(pop.Input.Message)
		if err != nil {
			return nil, fmt.Errorf("operation %s: %w", pop.Name, err)
		}
		out, err := readMessage(pop.Output.Message)
		if err != nil {
			return nil, fmt.Errorf("operation %s: %w", pop.Name, err)
		}
		o := &operation{Name: pop.Name, Input: in, Output: out}
		// Overloads are named after their request message:
		// processSequencesRequest1 -> ProcessSequences1.
		o.Method = exported(pop.Name)
		if overloadCount[pop.Name] > 1 {
			stem, suffix, ok := strings.Cut(in.Name, "Request")
			if !ok || stem != pop.Name {
				return nil, fmt.Errorf("overloaded operation %s: request message %s is not named %sRequest<n>", pop.Name, in.Name, pop.Name)
			}
			o.Method += suffix
		}
		if methods[o.Method] {
			return nil, fmt.Errorf("two operations map to the Go method %s", o.Method)
		}
		methods[o.Method] = true
		o.RequestStruct = exported(in.Name)
		o.ResponseStruct = exported(out.Name)
		svc.Operations = append(svc.Operations, o)
	}
	if len(svc.Operations) == 0 {
		return nil, fmt.Errorf("port type %s has no operations", svc.PortType)
	}
	return svc, nil
}

func agree(dst *string, v, what string) error {
	if *dst == "" {
		*dst = v
		return nil
	}
	if *dst != v {
		return fmt.Errorf("%s is %q, other operations use %q", what, v, *dst)
	}
	return nil
}

func exported(name string) string {
	if name == "" {
		return name
	}
	var b strings.Builder
	up := true
	for _, r := range name {
		if r == '_' || r == '-' || r == '.' {
			up = true
			continue
		}
		if up && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		up = false
		b.WriteRune(r)
	}
	return b.String()
}
