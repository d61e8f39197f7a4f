"""What the Python SOAP client checks share (client_zeep.py, client_suds.py):
the mutation lists they send, the calls of the sequences and analysis modes,
and the JSON they print. Each client script builds its service proxy, says
how a fault reads, and makes the reports mode's calls, whose arguments (the
SOAP-encoded mutation lists) each library needs in its own form.

Usage of either: python3 client_LIB.py WSDL_URL KEY MODE [ONE.fasta MANY.fasta]
  MODE reports: getScoringMatrix, processMutationLists and processSequences
                overload 3 (mutation lists in inputData)
  MODE sequences: the sequence operations other than the processSequences
                  overloads
  MODE analysis: processSequence with ONE.fasta's text and
                 processSequencesInFasta (report type 2) with MANY.fasta's
Prints one JSON object: operation => result (or "fault: <code>: <string>").
"""
import json
import sys

# mutation lists: [sample][gene PR, RT, IN][mutation]
MUTATION_LISTS = [
    [[], ["M41L", "M184V", "T215Y"], None],
    [["L90M"], [], ["N155H"]],
]


def run(service, key, mode, files, fault, describe, reports):
    """Makes the calls of mode and prints operation => result (or
    "fault: <code>: <string>" for an exception of class fault, read by
    describe). reports(call) makes the reports mode's calls."""
    out = {}

    def call(name, fn):
        try:
            out[name] = fn()
        except fault as f:
            out[name] = "fault: %s: %s" % describe(f)

    if mode == "reports":
        reports(call)
    elif mode == "analysis":
        with open(files[0]) as f:
            one = f.read()
        with open(files[1]) as f:
            many = f.read()
        call("processSequence", lambda: service.processSequence(key, one))
        call("processSequencesInFasta", lambda: service.processSequencesInFasta(key, 2, many))
    else:
        call("processSequence", lambda: service.processSequence(key, "ACGT"))
        call("processSequencesInFasta", lambda: service.processSequencesInFasta(key, 2, ">s1\nACGT\n>s2\nGGCC\n"))
        call("processSequencesString", lambda: service.processSequencesString(key, 3, "ACGT\nGGCC"))
    json.dump(out, sys.stdout, indent=1, default=str)
    print()
