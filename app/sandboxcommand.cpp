// verity sandbox: the sandbox payment provider, courier and seller-messaging service, for
// demos, training and tests. Its first
// line on stdout is "listening on http://127.0.0.1:PORT", so a script (or a test) can read
// the port it chose; the request log goes to stderr. It runs until SIGINT or SIGTERM.

#include "sandboxcommand.h"

#include "sandbox/sandboxseed.h"
#include "sandbox/sandboxserver.h"
#include "stopsignals.h"
#include "subcommandline.h"

#include <QCoreApplication>
#include <QTextStream>

namespace verity {

namespace {

struct Arguments
{
    quint16 port = defaultSandboxPort;
    QString statePath;
    bool seedDemo = false;
    SandboxOptions options;
    QString faultText; // for the start-up lines
};

std::optional<Arguments> parse(SubcommandLine &line, const QStringList &arguments, int &exitCode)
{
    QCommandLineParser &parser = line.parser();
    parser.setApplicationDescription(QStringLiteral(
            "A practice payment provider, courier and seller-messaging service on 127.0.0.1, with a\n"
            "Stripe-shaped API: refunds (/v1/refunds) and seller balances, pickups (/v1/pickups) and\n"
            "messages (/v1/messages), each POST with idempotency keys, and faults on request (a\n"
            "request's Sandbox-Fault header takes the same forms as --fault-mode)."));
    const QCommandLineOption port(QStringLiteral("port"), QStringLiteral("The port; 0 picks a free one."),
                                  QStringLiteral("N"), QString::number(defaultSandboxPort));
    const QCommandLineOption state(QStringLiteral("state"),
                                   QStringLiteral("The sandbox's state file (SQLite)."),
                                   QStringLiteral("FILE"), SandboxState::defaultLocation());
    const QCommandLineOption apiKey(QStringLiteral("api-key"),
                                    QStringLiteral("The API key clients must send."), QStringLiteral("KEY"),
                                    QStringLiteral("sk_test_sandbox"));
    const QCommandLineOption seed(
            QStringLiteral("seed-demo"),
            QStringLiteral("Load the provider's, the courier's and the messaging service's side of "
                           "Verity's demo data (once; again changes nothing)."));
    const QCommandLineOption retention(QStringLiteral("key-retention-hours"),
                                       QStringLiteral("How long an idempotency key is kept."),
                                       QStringLiteral("H"), QStringLiteral("24"));
    const QCommandLineOption searchLag(
            QStringLiteral("search-lag-seconds"),
            QStringLiteral("How long a new payment is missing from search results (Stripe's index lags "
                           "by up to a minute, more during an outage)."),
            QStringLiteral("S"), QStringLiteral("0"));
    const QCommandLineOption faultRate(
            QStringLiteral("fault-rate"),
            QStringLiteral("The probability (0 to 1) that a write (a refund, pickup or message "
                           "POST) meets --fault-mode."),
            QStringLiteral("P"), QStringLiteral("0"));
    const QCommandLineOption faultMode(
            QStringLiteral("fault-mode"),
            QStringLiteral("The server-wide fault: %1.").arg(SandboxFault::forms()), QStringLiteral("MODE"));
    const QCommandLineOption faultSeed(
            QStringLiteral("fault-seed"),
            QStringLiteral("Seed of the fault draws: the same seed, the same faults."), QStringLiteral("S"),
            QStringLiteral("1"));
    parser.addOptions({port, state, apiKey, seed, retention, searchLag, faultRate, faultMode, faultSeed});
    const auto fail = [&](const QString &message) -> std::optional<Arguments> {
        exitCode = line.fail(message);
        return std::nullopt;
    };
    if (std::optional<int> done = line.parse(arguments, QStringLiteral("Usage: verity sandbox [options]"))) {
        exitCode = *done;
        return std::nullopt;
    }
    if (!parser.positionalArguments().isEmpty())
        return fail(QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments().first()));

    Arguments parsed;
    bool valid = false;
    const uint portNumber = parser.value(port).toUInt(&valid);
    if (!valid || portNumber > 65535)
        return fail(
                QStringLiteral("--port must be a number from 0 to 65535; got '%1'").arg(parser.value(port)));
    parsed.port = quint16(portNumber);
    parsed.statePath = parser.value(state);
    parsed.seedDemo = parser.isSet(seed);
    parsed.options.apiKey = parser.value(apiKey);
    if (parsed.options.apiKey.isEmpty())
        return fail(QStringLiteral("--api-key must not be empty"));
    parsed.options.keyRetentionHours = parser.value(retention).toInt(&valid);
    if (!valid || parsed.options.keyRetentionHours < 1)
        return fail(
                QStringLiteral("--key-retention-hours must be a whole number of hours, at least 1; got '%1'")
                        .arg(parser.value(retention)));
    parsed.options.searchLagSeconds = parser.value(searchLag).toInt(&valid);
    if (!valid || parsed.options.searchLagSeconds < 0)
        return fail(
                QStringLiteral("--search-lag-seconds must be a whole number of seconds, 0 or more; got '%1'")
                        .arg(parser.value(searchLag)));
    const double rate = parser.value(faultRate).toDouble(&valid);
    if (!valid || rate < 0 || rate > 1)
        return fail(QStringLiteral("--fault-rate must be a probability from 0 to 1; got '%1'")
                            .arg(parser.value(faultRate)));
    const quint32 seedValue = parser.value(faultSeed).toUInt(&valid);
    if (!valid)
        return fail(
                QStringLiteral("--fault-seed must be a whole number; got '%1'").arg(parser.value(faultSeed)));
    if (parser.isSet(faultMode)) {
        const std::optional<SandboxFault> mode = SandboxFault::parse(parser.value(faultMode));
        if (!mode)
            return fail(QStringLiteral("--fault-mode '%1' is not one of %2")
                                .arg(parser.value(faultMode), SandboxFault::forms()));
        parsed.options.faults = SandboxFaultPlan(rate, *mode, seedValue);
        parsed.faultText =
                QStringLiteral("%1% of writes (refund, pickup and message POSTs) meet %2 (seed %3)")
                        .arg(rate * 100)
                        .arg(mode->text())
                        .arg(seedValue);
    } else if (rate > 0) {
        return fail(QStringLiteral("--fault-rate needs --fault-mode (%1)").arg(SandboxFault::forms()));
    }
    return parsed;
}

} // namespace

int runSandboxCommand(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    int exitCode = 0;
    SubcommandLine commandLine(QStringLiteral("sandbox"), QString());
    const std::optional<Arguments> parsed = parse(commandLine, arguments, exitCode);
    if (!parsed)
        return exitCode;

    Expected<std::unique_ptr<SandboxState>> state = SandboxState::open(parsed->statePath);
    if (!state) {
        err << "verity sandbox: " << state.message() << "\n";
        return 2;
    }
    QString seedLine;
    if (parsed->seedDemo) {
        Expected<SandboxSeedReport> seeded = seedDemo(**state);
        if (!seeded) {
            err << "verity sandbox: " << seeded.message() << "\n";
            return 2;
        }
        const auto listed = [](const QStringList &calls) {
            return calls.isEmpty() ? QStringLiteral("none") : calls.join(QStringLiteral(", "));
        };
        seedLine = seeded->alreadySeeded
                ? QStringLiteral("demo data: already seeded, nothing changed")
                : QStringLiteral("demo data: %1 sellers, %2 payments, %3 refunds, %4 pickups, %5 messages; "
                                 "unknown writes that never reached their system: refunds %6; pickups %7; "
                                 "messages %8")
                          .arg(seeded->accounts)
                          .arg(seeded->payments)
                          .arg(seeded->refunds)
                          .arg(seeded->pickups)
                          .arg(seeded->messages)
                          .arg(listed(seeded->notPerformed), listed(seeded->pickupsNotMade),
                               listed(seeded->messagesNotSent));
    }

    SandboxServer server(**state, parsed->options);
    Expected<quint16> port = server.listenLocal(parsed->port);
    if (!port) {
        err << "verity sandbox: " << port.message() << "\n";
        return 2;
    }
    if (!watchStopSignals(&server, [] { QCoreApplication::quit(); }))
        err << "verity sandbox: cannot watch for SIGINT and SIGTERM; stop it with SIGKILL\n";
    QObject::connect(&server, &SandboxServer::served, &server,
                     [&err](const QString &line) { err << line << Qt::endl; });

    out << "listening on " << server.url().toString() << "\n"
        << "api key: " << parsed->options.apiKey << "\n"
        << "state: " << (*state)->location() << "\n";
    if (!seedLine.isEmpty())
        out << seedLine << "\n";
    if (!parsed->faultText.isEmpty())
        out << "faults: " << parsed->faultText << "\n";
    out << Qt::flush;

    const int result = QCoreApplication::exec();
    err << "verity sandbox: stopped\n" << Qt::flush;
    return result;
}

} // namespace verity
