<?php
// Real-client check of the SiteAlgorithm WSDL with PHP's SoapClient.
// Usage: php client.php WSDL_URL KEY MODE [ONE.fasta MANY.fasta]
//   MODE reports: getScoringMatrix, processMutationLists and processSequences
//                 overloads 2 and 3 (mutation lists in inputData)
//   MODE sequences: overload 1 and the other sequence operations
//   MODE analysis: processSequence with ONE.fasta's text and
//                  processSequencesInFasta (report type 2) with MANY.fasta's
// Prints one JSON object: operation => result (or "fault: <code>: <string>").
//
// PHP's SoapClient keeps only the first processSequences overload of the
// WSDL (it matches every binding operation to the first port type operation
// of that name); it sends further arguments as param3, param4… and types
// each argument by the first overload's part at that position. Two ways to
// call overloads 2 and 3 are shown, both checked by the Go tests:
//  - positional, through the WSDL client: all arguments in order, the third
//    one (algorithm, an int where overload 1 has an array) wrapped in a
//    SoapVar; the argument count selects the overload;
//  - named: a non-WSDL SoapClient for the endpoint and request namespace
//    that the published WSDL declares, with __soapCall and one SoapParam
//    per part, so the part names select the overload.
[$script, $wsdl, $key, $mode] = $argv;
$client = new SoapClient($wsdl, ['trace' => 1, 'exceptions' => true, 'cache_wsdl' => WSDL_CACHE_NONE]);
$out = ['functions' => $client->__getFunctions()];

// The endpoint and request namespace the published WSDL declares, for the
// named calls (read with a regular expression: Debian's php-cli has no DOM
// without php-xml, and the WSDL client does not expose them).
$text = file_get_contents($wsdl);
if (!preg_match('/<(?:\w+:)?address\s+location="([^"]*)"/', $text, $m1) ||
    !preg_match('/<(?:\w+:)?body\b[^>]*\bnamespace="([^"]*)"/', $text, $m2)) {
    fwrite(STDERR, "cannot find the endpoint and namespace in the WSDL\n");
    exit(1);
}
$endpoint = html_entity_decode($m1[1], ENT_QUOTES | ENT_XML1);
$requestNamespace = html_entity_decode($m2[1], ENT_QUOTES | ENT_XML1);
$named = new SoapClient(null, ['location' => $endpoint, 'uri' => $requestNamespace,
    'style' => SOAP_RPC, 'use' => SOAP_ENCODED, 'exceptions' => true]);

// parts turns [name => value, …] into the SoapParams of a named call.
function parts(array $values) {
    $out = [];
    foreach ($values as $name => $value) {
        $out[] = new SoapParam($value, $name);
    }
    return $out;
}

function call($name, $fn) {
    global $out;
    try {
        $out[$name] = $fn();
    } catch (SoapFault $f) {
        $out[$name] = 'fault: ' . $f->faultcode . ': ' . $f->getMessage();
    }
}

// mutation lists: [sample][gene PR, RT, IN][mutation]
$lists = [
    [[], ['M41L', 'M184V', 'T215Y'], null],
    [['L90M'], [], ['N155H']],
];

if ($mode === 'reports') {
    call('getScoringMatrix', fn() => $client->getScoringMatrix($key));
    call('processMutationLists', fn() => $client->processMutationLists($key, 0, $lists));
    call('processMutationLists3', fn() => $client->processMutationLists($key, 3, $lists));
    call('overload2', fn() => $client->processSequences($key, 2, new SoapVar(1, XSD_INT), '', '', 'php-method', 'php-report', '2026-01-02', $lists));
    call('overload3', fn() => $client->processSequences($key, 0, new SoapVar(2, XSD_INT), '', 'php-method', 'php-report', '2026-01-02', $lists));
    call('overload2Named', fn() => $named->__soapCall('processSequences', parts([
        'key' => $key, 'inAlgorithmInterface' => 2, 'algorithm' => 1, 'userSubmittedAlgorithm' => '',
        'reportOptions' => '', 'methodName' => 'php-method', 'reportName' => 'php-report',
        'reportDate' => '2026-01-02', 'inputData' => $lists])));
    call('overload3Named', fn() => $named->__soapCall('processSequences', parts([
        'key' => $key, 'inAlgorithmInterface' => 0, 'algorithm' => 2, 'userSubmittedAlgorithm' => '',
        'methodName' => 'php-method', 'reportName' => 'php-report', 'reportDate' => '2026-01-02',
        'inputData' => $lists])));
    call('badKey', fn() => $client->processMutationLists('not-a-key', 0, $lists));
    call('badReportType', fn() => $client->processMutationLists($key, 9, $lists));
} elseif ($mode === 'analysis') {
    call('processSequence', fn() => $client->processSequence($key, file_get_contents($argv[4])));
    call('processSequencesInFasta', fn() => $client->processSequencesInFasta($key, 2, file_get_contents($argv[5])));
} else {
    call('overload1', fn() => $client->processSequences($key, 1, ['ACGTACGT', 'GGGCCC']));
    call('processSequence', fn() => $client->processSequence($key, 'ACGT'));
    call('processSequencesInFasta', fn() => $client->processSequencesInFasta($key, 2, ">s1\nACGT\n>s2\nGGCC\n"));
    call('processSequencesString', fn() => $client->processSequencesString($key, 3, "ACGT\nGGCC"));
}
echo json_encode($out, JSON_PRETTY_PRINT), "\n";
