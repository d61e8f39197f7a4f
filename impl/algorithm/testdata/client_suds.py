#!/usr/bin/python3
"""Real-client check of the SiteAlgorithm WSDL with Python's suds.

Usage: python3 client_suds.py WSDL_URL KEY MODE [ONE.fasta MANY.fasta]
  MODE and what is printed: see soapcalls.py.

suds keeps one method per name: for the overloaded processSequences the
WSDL's last overload (3), so overloads 1 and 2 are not callable through it.

SOAP-encoded arrays: suds flattens nested Python lists into one array of
strings and drops the content of suds.sax Element values, so the nested
mutation lists go as Raw XML (the array's items, with xsi:type and
soapenc:arrayType); suds writes the part's own element around them.
"""
import sys

import suds
import suds.client
from suds.sax.element import Element
from suds.sax.text import Raw

import soapcalls

SOAP_ENCODING = "http://schemas.xmlsoap.org/soap/encoding/"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
XSD = "http://www.w3.org/2001/XMLSchema"


def encoded(value, depth):
    """value (nested lists of strings, None for nil) as a SOAP-encoded item
    element; depth 1 is an array of strings."""
    e = Element("item")
    e.addPrefix("xsi", XSI)
    e.addPrefix("soapenc", SOAP_ENCODING)
    e.addPrefix("xsd", XSD)
    if value is None:
        e.set("xsi:nil", "true")
        return e
    if isinstance(value, str):
        e.set("xsi:type", "xsd:string")
        e.setText(value)
        return e
    e.set("xsi:type", "soapenc:Array")
    item = "xsd:string" if depth == 1 else "xsd:anyType"
    e.set("soapenc:arrayType", "%s[%d]" % (item, len(value)))
    for v in value:
        e.append(encoded(v, depth - 1))
    return e


def items(values, depth):
    """The items of an encoded array of values, as Raw XML for a part."""
    return Raw("".join(encoded(v, depth - 1).plain() for v in values))


def main():
    wsdl, key, mode = sys.argv[1:4]
    service = suds.client.Client(wsdl, cache=None).service
    lists = soapcalls.MUTATION_LISTS

    def reports(call):
        call("getScoringMatrix", lambda: service.getScoringMatrix(key))
        call("processMutationLists", lambda: service.processMutationLists(key, 0, items(lists, 3)))

        def overload3():
            answers = service.processSequences(key, 0, 1, "", "suds-method", "suds-report", "2026-01-05", items(lists, 3))
            return [str(r) for r in answers]

        call("overload3", overload3)
        call("badKey", lambda: service.processMutationLists("not-a-key", 0, items(lists, 3)))
        call("badReportType", lambda: service.processMutationLists(key, 6, items(lists, 3)))

    soapcalls.run(service, key, mode, sys.argv[4:6], suds.WebFault,
                  lambda f: (f.fault.faultcode, f.fault.faultstring), reports)


if __name__ == "__main__":
    main()
