<?php
// Real-client check of the SiteAlgorithm WSDL with PHP's SoapClient.
// Usage: php client.php WSDL_URL KEY MODE
//   MODE reports: getScoringMatrix, processMutationLists and processSequences
//                 overloads 2 and 3 (mutation lists in inputData)
//   MODE sequences: overload 1 and the other sequence operations
// Prints one JSON object: operation => result (or "fault: <code>: <string>").
//
// PHP's SoapClient keeps only the first processSequences overload of the
// WSDL; it sends further arguments as param3, param4… and types each
// argument by the first overload's part at that position. Overloads 2 and 3
// are therefore called with all their arguments in order, wrapping the
// third one (algorithm, an int where overload 1 has an array) in a SoapVar.
[$script, $wsdl, $key, $mode] = $argv;
$client = new SoapClient($wsdl, ['trace' => 1, 'exceptions' => true, 'cache_wsdl' => WSDL_CACHE_NONE]);
$out = ['functions' => $client->__getFunctions()];

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
    call('badKey', fn() => $client->processMutationLists('not-a-key', 0, $lists));
    call('badReportType', fn() => $client->processMutationLists($key, 9, $lists));
} else {
    call('overload1', fn() => $client->processSequences($key, 1, ['ACGTACGT', 'GGGCCC']));
    call('processSequence', fn() => $client->processSequence($key, 'ACGT'));
    call('processSequencesInFasta', fn() => $client->processSequencesInFasta($key, 2, ">s1\nACGT\n>s2\nGGCC\n"));
    call('processSequencesString', fn() => $client->processSequencesString($key, 3, "ACGT\nGGCC"));
}
echo json_encode($out, JSON_PRETTY_PRINT), "\n";
