// Package soapapi is generated from wsdl/SiteAlgorithm.wsdl by cmd/wsdlgen;
// see soapapi.gen.go. Re-run with `go generate ./gen/soapapi/`.
package soapapi

//go:generate go tool wsdlgen -wsdl ../../wsdl/SiteAlgorithm.wsdl -pkg soapapi -o soapapi.gen.go -runtime github.com/sitelib/sitesvc/gen/soap -embed reports=../../wsdl/reports.xsd -embed soapenc=../../wsdl/soapenc.xsd
