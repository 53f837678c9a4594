// verity simulate: generated tickets through the refund tool as shipped or through the safe
// runtime, against a sandbox provider on loopback, by a fixed model policy; prints what
// happened to the money. The same seed gives the same numbers.

#include "simulatecommand.h"

#include "provider/providerurl.h"
#include "resolution/providerconnection.h"
#include "simulation/modelpolicy.h"
#include "simulation/simulatedtranscript.h"
#include "simulation/simulationoptions.h"
#include "simulation/simulationsummary.h"

#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTextStream>

#include <unistd.h>

#include <cstdio>

namespace verity {

namespace {

const QString usage = QStringLiteral(
        "Usage: verity simulate --policy as-shipped|intent-key [--tickets N] [--fault-rate P] [--seed S]\n"
        "                       [--json] [--out FILE] [--sandbox URL]\n"
        "\n"
        "Runs N generated refund tickets through the refund tool, as shipped or with the intent key\n"
        "(the safe runtime), against a sandbox payment provider, and prints writes attempted, HTTP\n"
        "POSTs sent, refunds performed (counted at the provider), duplicate refunds, unknowns\n"
        "escalated, money at risk and sellers left negative. The same seed gives the same numbers.\n"
        "Exit status: 0 done; 1 the run failed, or the provider answered in ways the fault schedule did not\n"
        "call for (a sandbox with faults of its own, a machine too slow), so the numbers are not the\n"
        "simulation's; 2 bad arguments or an --out folder that does not exist or cannot be written.\n"
        "On a terminal it shows progress (not with --json).\n"
        "\n"
        "Options:\n"
        "  --policy POLICY   as-shipped: a fresh random idempotency key per attempt, a timeout reported\n"
        "                    as {\"error\":\"refund failed: upstream timeout\"}; intent-key: the key "
        "derived\n"
        "                    from the intent, a lookup after any ambiguous answer, four outcomes\n"
        "  --tickets N       how many tickets (1 to 1000000 in one run; default 100)\n"
        "  --fault-rate P    0 to 1 (default 0.05): each refund POST meets accept-then-stall (the provider\n"
        "                    commits, its answer comes after the client gave up) with probability P; and,\n"
        "                    independently with probability P, the provider's read API is down for a\n"
        "                    ticket (every lookup answered 503), so a lookup cannot tell\n"
        "  --seed S          the seed of tickets, faults and keys (a whole number; default 1)\n"
        "  --json            print the numbers as JSON\n"
        "  --out FILE        also write the transcripts in Verity's native JSONL format, with the http\n"
        "                    and provider lines of every request (verity import FILE reads it); its\n"
        "                    folder must exist and be writable. Without it no transcript is kept\n"
        "  --sandbox URL     use a running `verity sandbox` on this machine instead of starting one; its\n"
        "                    API key is read from VERITY_PROVIDER_API_KEY (default sk_test_sandbox)\n"
        "                    and it must not inject faults of its own: an answer the run's schedule did\n"
        "                    not call for makes the numbers not the simulation's (exit status 1)\n"
        "\n"
        "Times in transcripts follow the March incident's clock (a 5 s client timeout, the provider\n"
        "committing about 0.4 s after the POST); the requests themselves run on a compressed clock.\n"
        "\n");

// Memory grows with the count (each ticket's outcome is kept for the summary), so one run is
// bounded; a larger study runs several seeds.
constexpr int maxTickets = 1000000;

struct Options
{
    SimulationOptions simulation;
    bool json = false;
    QString out;
};

Expected<Options> parseOptions(const QCommandLineParser &parser)
{
    const auto fail = [](const QString &message) -> Expected<Options> { return makeError(message); };
    if (!parser.positionalArguments().isEmpty())
        return fail(QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    Options options;
    if (!parser.isSet(QStringLiteral("policy")))
        return fail(QStringLiteral("--policy is required: as-shipped or intent-key"));
    const QString policy = parser.value(QStringLiteral("policy"));
    const std::optional<SimPolicy> parsed = simPolicyFromId(policy);
    if (!parsed)
        return fail(QStringLiteral("--policy: expected as-shipped or intent-key, got \"%1\"").arg(policy));
    options.simulation.policy = *parsed;

    bool valid = false;
    const QString tickets = parser.value(QStringLiteral("tickets"));
    static const QRegularExpression digits(QStringLiteral("^[0-9]+$"));
    const qlonglong count = tickets.toLongLong(&valid);
    if (digits.match(tickets).hasMatch() && (!valid || count > maxTickets))
        return fail(
                QStringLiteral("--tickets: at most %1 tickets in one run (memory grows with the count; run "
                               "several seeds for more), got %2")
                        .arg(maxTickets)
                        .arg(tickets));
    if (!valid || count < 1)
        return fail(QStringLiteral("--tickets: expected a whole number from 1 to %1, got \"%2\"")
                            .arg(maxTickets)
                            .arg(tickets));
    options.simulation.tickets = int(count);
    const QString rate = parser.value(QStringLiteral("fault-rate"));
    options.simulation.faultRate = rate.toDouble(&valid);
    if (!valid || !(options.simulation.faultRate >= 0 && options.simulation.faultRate <= 1))
        return fail(QStringLiteral("--fault-rate: expected a probability from 0 to 1, got \"%1\"").arg(rate));
    const QString seed = parser.value(QStringLiteral("seed"));
    options.simulation.seed = seed.toUInt(&valid);
    if (!valid)
        return fail(
                QStringLiteral("--seed: expected a whole number from 0 to 4294967295, got \"%1\"").arg(seed));
    if (parser.isSet(QStringLiteral("sandbox"))) {
        const QString text = parser.value(QStringLiteral("sandbox"));
        // The rule for any URL the API key goes to first, then the sandbox's own: http on this machine.
        const Expected<QUrl> checked = parseProviderUrl(text);
        if (!checked)
            return fail(QStringLiteral("--sandbox: %1").arg(checked.message()));
        const QUrl url = *checked;
        if (url.scheme() != u"http" || !isLoopbackHost(url.host()))
            return fail(
                    QStringLiteral(
                            "--sandbox: expected an http URL on this machine such as http://127.0.0.1:12111, "
                            "got \"%1\"")
                            .arg(text));
        options.simulation.sandboxUrl = url;
        const QString key = qEnvironmentVariable(ProviderConnection::apiKeyVariable);
        if (!key.isEmpty())
            options.simulation.apiKey = key;
    }
    options.json = parser.isSet(QStringLiteral("json"));
    if (parser.isSet(QStringLiteral("out"))) {
        options.out = parser.value(QStringLiteral("out"));
        if (options.out.isEmpty())
            return fail(QStringLiteral("--out: expected a file name"));
        options.simulation.keepEvents = true;
    }
    return options;
}

// Before the run, not after it: a run of many tickets should not end in "cannot write".
// QSaveFile writes beside the file and renames, so the folder must take new files.
Expected<void> checkOutPath(const QString &out)
{
    const QFileInfo file(out);
    const QString folder = QDir::toNativeSeparators(file.absolutePath());
    const QFileInfo folderInfo(file.absolutePath());
    if (!folderInfo.exists())
        return makeError(QStringLiteral("--out: the folder %1 does not exist").arg(folder));
    if (!folderInfo.isDir())
        return makeError(QStringLiteral("--out: %1 is not a folder").arg(folder));
    if (!folderInfo.isWritable())
        return makeError(QStringLiteral("--out: the folder %1 is not writable").arg(folder));
    if (file.isDir())
        return makeError(QStringLiteral("--out: %1 is a folder; expected a file name")
                                 .arg(QDir::toNativeSeparators(file.absoluteFilePath())));
    if (file.exists() && !file.isWritable())
        return makeError(QStringLiteral("--out: %1 exists and is not writable")
                                 .arg(QDir::toNativeSeparators(file.absoluteFilePath())));
    return {};
}

// "simulating: 1200 of 10000 tickets (12%)" on one line of a terminal, a few times a second;
// nothing when stderr is not a terminal, so logs and pipes stay clean.
class TicketProgress
{
public:
    TicketProgress(QTextStream &stream, bool wanted)
        : m_stream(stream)
        , m_enabled(wanted && isatty(fileno(stderr)) == 1)
    {}

    void show(int done, int total)
    {
        if (!m_enabled || (m_sinceLast.isValid() && m_sinceLast.elapsed() < 200 && done < total))
            return;
        m_sinceLast.start();
        m_stream << "\r\033[Ksimulating: " << done << " of " << total << " tickets ("
                 << (total > 0 ? qint64(100) * done / total : 0) << "%)";
        m_stream.flush();
        m_shown = true;
    }

    void clear()
    {
        if (!m_shown)
            return;
        m_stream << "\r\033[K";
        m_stream.flush();
        m_shown = false;
    }

private:
    QTextStream &m_stream;
    bool m_enabled;
    bool m_shown = false;
    QElapsedTimer m_sinceLast;
};

} // namespace

int runSimulateCommand(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser parser;
    parser.addOptions({
            {QStringLiteral("policy"), QStringLiteral("as-shipped or intent-key"), QStringLiteral("POLICY")},
            {QStringLiteral("tickets"), QStringLiteral("how many tickets"), QStringLiteral("N"),
             QStringLiteral("100")},
            {QStringLiteral("fault-rate"), QStringLiteral("0 to 1"), QStringLiteral("P"),
             QStringLiteral("0.05")},
            {QStringLiteral("seed"), QStringLiteral("the seed"), QStringLiteral("S"), QStringLiteral("1")},
            {QStringLiteral("json"), QStringLiteral("print JSON")},
            {QStringLiteral("out"), QStringLiteral("write transcripts"), QStringLiteral("FILE")},
            {QStringLiteral("sandbox"), QStringLiteral("a running sandbox"), QStringLiteral("URL")},
            {{QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("this help")},
    });
    // arguments[0] is the program, as QCommandLineParser expects.
    if (!parser.parse(arguments)) {
        err << "verity simulate: " << parser.errorText() << "\n\n" << usage;
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        out << usage << ModelPolicy::tableText();
        return 0;
    }
    const Expected<Options> options = parseOptions(parser);
    if (!options) {
        err << "verity simulate: " << options.message() << "\n\n" << usage;
        return 2;
    }

    if (!options->out.isEmpty()) {
        if (Expected<void> writable = checkOutPath(options->out); !writable) {
            err << "verity simulate: " << writable.message() << "\n";
            return 2;
        }
    }

    TicketProgress progress(err, !options->json);
    const Expected<SimulationResult> result =
            runSimulation(simulationSetup(options->simulation),
                          [&progress](int done, int total) { progress.show(done, total); });
    progress.clear();
    if (!result) {
        err << "verity simulate: " << result.message() << "\n";
        return 1;
    }
    const SimulationSummary summary = summarize(*result);
    if (!options->out.isEmpty()) {
        if (Expected<void> written = writeNativeTranscript(options->out, result->tickets); !written) {
            err << "verity simulate: --out " << written.message() << "\n";
            return 1;
        }
    }
    if (options->json) {
        QJsonObject json = summaryJson(summary);
        if (!options->out.isEmpty())
            json.insert(QStringLiteral("out"), options->out);
        out << QJsonDocument(json).toJson(QJsonDocument::Indented);
    } else {
        out << summaryText(summary);
        if (!options->out.isEmpty())
            out << "transcripts: " << options->out << "\n";
    }
    out.flush();
    if (summary.problems > 0) {
        err << "verity simulate: the provider answered " << summary.problems
            << " tickets' requests in ways the run's fault schedule did not call for (a sandbox with faults "
               "of its "
               "own, or a machine too slow for the compressed timing), so these numbers are not the "
               "simulation's; "
               "first: "
            << summary.firstProblem << "\n";
        return 1;
    }
    return 0;
}

} // namespace verity
