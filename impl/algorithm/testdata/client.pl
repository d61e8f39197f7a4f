#!/usr/bin/perl
# Real-client check of the SiteAlgorithm WSDL with Perl's SOAP::Lite.
# Usage: perl client.pl WSDL_URL KEY MODE [ONE.fasta MANY.fasta]
#   (MODE: reports | sequences | analysis: processSequence with ONE.fasta's text,
#    processSequencesInFasta report type 2 with MANY.fasta's)
# Prints one JSON object: operation => result (or "fault: <code>: <string>").
#
# SOAP::Lite->service builds one stub per operation name from the WSDL; for
# the overloaded processSequences it keeps the last overload (3), and its
# stubs send complex-typed parts (the nested mutationsList array) as nil.
# So stubs are used where they work, and the other calls go through the
# same WSDL-configured object with named parts (SOAP::Data), which is how
# SOAP::Lite programs call rpc/encoded services.
use strict;
use warnings;
use SOAP::Lite;
use JSON::PP;

my ($wsdl, $key, $mode, $one, $many) = @ARGV;

sub slurp {
    my ($path) = @_;
    open my $fh, '<', $path or die "$path: $!\n";
    local $/;
    return scalar <$fh>;
}
my $svc = SOAP::Lite->service($wsdl);
$svc->on_fault(sub { my ($soap, $res) = @_; die ref $res ? "fault: " . $res->faultcode . ": " . $res->faultstring . "\n" : "transport: " . $soap->transport->status . "\n" });
my %out;

sub try_call {
    my ($name, $fn) = @_;
    my $r = eval { $fn->() };
    if ($@) { chomp(my $e = $@); $out{$name} = $e; return }
    $r = $r->result if ref $r eq 'SOAP::SOM';
    $out{$name} = $r;
}

sub named {
    my @parts = @_;
    my @data;
    while (my ($name, $type, $value) = splice @parts, 0, 3) {
        my $d = SOAP::Data->name($name => $value);
        $d->type($type) if $type;
        push @data, $d;
    }
    return @data;
}

my $lists = [
    [[], ['M41L', 'M184V', 'T215Y'], undef],
    [['L90M'], [], ['N155H']],
];

if ($mode eq 'reports') {
    try_call(getScoringMatrix => sub { $svc->getScoringMatrix($key) });
    try_call(processMutationLists => sub { $svc->call('processMutationLists', named(key => 'string', $key, reportTypeInt => 'int', 0, mutationsList => '', $lists)) });
    try_call(overload2 => sub { $svc->call('processSequences', named(
        key => 'string', $key, inAlgorithmInterface => 'int', 2, algorithm => 'int', 1, userSubmittedAlgorithm => 'string', '',
        reportOptions => 'string', '', methodName => 'string', 'perl-method', reportName => 'string', 'perl-report',
        reportDate => 'string', '2026-01-03', inputData => '', $lists)) });
    try_call(overload3 => sub { $svc->processSequences($key, 0, 0, '', 'perl-method', 'perl-report', '2026-01-03', $lists) });
    try_call(badKey => sub { $svc->getScoringMatrix('not-a-key') });
    try_call(badReportType => sub { $svc->call('processMutationLists', named(key => 'string', $key, reportTypeInt => 'int', 7, mutationsList => '', $lists)) });
} elsif ($mode eq 'analysis') {
    try_call(processSequence => sub { $svc->processSequence($key, slurp($one)) });
    try_call(processSequencesInFasta => sub { $svc->processSequencesInFasta($key, 2, slurp($many)) });
} else {
    # Stubs first: the first stub call sets the endpoint from the WSDL for
    # the named calls after it.
    try_call(processSequence => sub { $svc->processSequence($key, 'ACGT') });
    try_call(processSequencesInFasta => sub { $svc->processSequencesInFasta($key, 2, ">s1\nACGT\n>s2\nGGCC\n") });
    try_call(processSequencesString => sub { $svc->processSequencesString($key, 3, "ACGT\nGGCC") });
    try_call(overload1 => sub { $svc->call('processSequences', named(key => 'string', $key, reportTypeInt => 'int', 1, sequence => '', ['ACGTACGT', 'GGGCCC'])) });
}
print JSON::PP->new->utf8->canonical->pretty->encode(\%out);
