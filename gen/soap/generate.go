// gen/soap is the SOAP 1.1 rpc/encoded runtime that gen/soapapi's generated
// code runs on, emitted by cmd/wsdlgen from its runtime source
// (cmd/wsdlgen/runtime). Re-run with `go generate ./gen/soap/`.

package soap

//go:generate go tool wsdlgen -emit-runtime -pkg soap -o .
