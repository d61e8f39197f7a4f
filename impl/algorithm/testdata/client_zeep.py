#!/usr/bin/python3
"""Real-client check of the SiteAlgorithm WSDL with Python's zeep.

Usage: python3 client_zeep.py WSDL_URL KEY MODE [ONE.fasta MANY.fasta]
  MODE and what is printed: see soapcalls.py.

zeep loads the WSDL strictly (it must parse every type) and keeps one
operation per name: for the overloaded processSequences it keeps the last
overload (3), so overloads 1 and 2 are not callable through it.

zeep loads a schema for every namespace the WSDL's schema imports: the
WSDL names the service's own copy of the SOAP encoding types
(<endpoint>?xsd=soapenc) as that import's schemaLocation, so zeep needs no
network (without it, zeep went to schemas.xmlsoap.org and failed offline).

SOAP-encoded arrays: zeep gives their items no type (the array types
restrict soapenc:Array, whose content is xsd:any), so the nested mutation
lists are passed as XML elements with xsi:type and soapenc:arrayType; the
xsd:anyType part inputData takes them as an AnyObject, which zeep sends with
its xsi:type (a plain value would be sent as its Python text).
"""
import sys

import zeep
from lxml import etree

import soapcalls

SOAP_ENCODING = "http://schemas.xmlsoap.org/soap/encoding/"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
XSD = "http://www.w3.org/2001/XMLSchema"


def encoded(value, depth, name="item"):
    """value (nested lists of strings, None for nil) as a SOAP-encoded element;
    depth 1 is an array of strings."""
    e = etree.Element(name, nsmap={"xsi": XSI, "soapenc": SOAP_ENCODING, "xsd": XSD})
    if value is None:
        e.set("{%s}nil" % XSI, "true")
        return e
    if isinstance(value, str):
        e.set("{%s}type" % XSI, "xsd:string")
        e.text = value
        return e
    e.set("{%s}type" % XSI, "soapenc:Array")
    item = "xsd:string" if depth == 1 else "xsd:anyType"
    e.set("{%s}arrayType" % SOAP_ENCODING, "%s[%d]" % (item, len(value)))
    for v in value:
        e.append(encoded(v, depth - 1))
    return e


def main():
    wsdl, key, mode = sys.argv[1:4]
    client = zeep.Client(wsdl)
    service = client.service
    mutations_list = client.get_type("ns0:ArrayOfArrayOfArrayOf_xsd_string")

    def mutation_lists():
        return mutations_list([encoded(sample, 2) for sample in soapcalls.MUTATION_LISTS])

    def reports(call):
        call("getScoringMatrix", lambda: service.getScoringMatrix(key))
        call("processMutationLists", lambda: service.processMutationLists(key, 0, mutation_lists()))

        def overload3():
            items = service.processSequences(key, 0, 1, "", "zeep-method", "zeep-report", "2026-01-04",
                                             zeep.xsd.AnyObject(mutations_list, mutation_lists()))
            return [str(i) for i in items]

        call("overload3", overload3)
        call("badKey", lambda: service.processMutationLists("not-a-key", 0, mutation_lists()))
        call("badReportType", lambda: service.processMutationLists(key, 8, mutation_lists()))

    soapcalls.run(service, key, mode, sys.argv[4:6], zeep.exceptions.Fault, lambda f: (f.code, f.message), reports)


if __name__ == "__main__":
    main()
