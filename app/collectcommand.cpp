// verity collect: receives the agent's telemetry as it happens, OTLP/HTTP traces (as the
// OpenTelemetry SDKs and the Collector export them) and Verity's own JSONL events, and stores
// each request before answering it, so an unknown write is in the escalation queue within
// moments. Its first line on stdout is "listening on http://ADDR:PORT", so a script (or a test)
// can read the port it chose; one line per request goes to stderr. It runs until SIGINT or
// SIGTERM, which finish the request in hand and refuse the rest with 503.

#include "collectcommand.h"

#include "collect/collectserver.h"
#include "domain/registrychoice.h"
#include "driverchatter.h"
#include "listenaddress.h"
#include "registryoption.h"
#include "resolution/operatoridentity.h"
#include "stopsignals.h"
#include "store/changefeed.h"
#include "store/storefactory.h"
#include "subcommandline.h"
#include "terminalprogress.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QTextStream>
#include <QTimer>

#include <functional>

namespace verity {

namespace {

struct Arguments
{
    QString database;
    QHostAddress address = QHostAddress::LocalHost;
    quint16 port = defaultCollectPort;
    QString registry;
    CollectOptions options;
    CollectTls tls;
};

std::optional<Arguments> parse(SubcommandLine &line, const QStringList &arguments, int &exitCode)
{
    QCommandLineParser &parser = line.parser();
    parser.setApplicationDescription(QStringLiteral(
            "Receive the agent's telemetry as it happens: OTLP/HTTP traces (POST /v1/traces, protobuf or\n"
            "JSON, optionally gzip) as OpenTelemetry SDKs and the Collector send them, and Verity's own "
            "JSONL\n"
            "events (POST /v1/events). Each request is stored before it is answered; a write whose outcome\n"
            "is unknown opens its escalation at once. Stops on SIGINT or SIGTERM."));
    const QCommandLineOption db(QStringLiteral("db"),
                                QStringLiteral("The database: a file, or a PostgreSQL URI."),
                                QStringLiteral("PATH|URI"), defaultStoreLocation());
    const QCommandLineOption listen(
            QStringLiteral("listen"),
            QStringLiteral("Where to listen: ADDR:PORT, or PORT on 127.0.0.1. Only loopback unless an "
                           "address is given; port 0 picks a free one."),
            QStringLiteral("ADDR:PORT"), QStringLiteral("127.0.0.1:%1").arg(defaultCollectPort));
    const QCommandLineOption token(
            QStringLiteral("token"),
            QStringLiteral("Require \"Authorization: Bearer TOKEN\" on every request (or set "
                           "VERITY_COLLECT_TOKEN, which other users cannot read in the process list)."),
            QStringLiteral("TOKEN"));
    const QCommandLineOption certificate(QStringLiteral("tls-cert"),
                                         QStringLiteral("Serve HTTPS with this PEM certificate."),
                                         QStringLiteral("FILE"));
    const QCommandLineOption key(QStringLiteral("tls-key"),
                                 QStringLiteral("The certificate's PEM private key, unencrypted."),
                                 QStringLiteral("FILE"));
    const QCommandLineOption maxBody(
            QStringLiteral("max-body-mb"),
            QStringLiteral("The largest request body, as sent and inflated (413 above)."),
            QStringLiteral("MB"), QStringLiteral("16"));
    const QCommandLineOption grace(
            QStringLiteral("grace"),
            QStringLiteral(
                    "How long a write reported by an event line (POST /v1/events) waits for its result "
                    "before it is escalated as unknown. A trace's tool span is exported when it ends, so "
                    "one without a result is escalated at once."),
            QStringLiteral("SECONDS"), QStringLiteral("120"));
    parser.addOptions({db, listen, token, certificate, key, maxBody, grace, registryOption()});
    const auto fail = [&](const QString &message) -> std::optional<Arguments> {
        exitCode = line.fail(message);
        return std::nullopt;
    };
    if (std::optional<int> done = line.parse(
                arguments,
                QStringLiteral("Usage: verity collect [--db PATH|URI] [--listen ADDR:PORT] [--token TOKEN] "
                               "[--tls-cert FILE --tls-key FILE] [--max-body-mb N] [--grace SECONDS] "
                               "[--registry NAME|FILE]"))) {
        exitCode = *done;
        return std::nullopt;
    }
    if (!parser.positionalArguments().isEmpty())
        return fail(QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments().first()));

    Arguments parsed;
    parsed.database = parser.value(db);
    const std::optional<std::pair<QHostAddress, quint16>> where = parseListen(parser.value(listen));
    if (!where)
        return fail(
                QStringLiteral("--listen expects ADDR:PORT (127.0.0.1:4318, [::1]:4318) or a port; got '%1'")
                        .arg(parser.value(listen)));
    parsed.address = where->first;
    parsed.port = where->second;
    parsed.options.token =
            parser.isSet(token) ? parser.value(token) : qEnvironmentVariable("VERITY_COLLECT_TOKEN");
    if (parser.isSet(token) && parsed.options.token.trimmed().isEmpty())
        return fail(QStringLiteral("--token must not be empty"));
    bool valid = false;
    const int megabytes = parser.value(maxBody).toInt(&valid);
    if (!valid || megabytes < 1 || megabytes > 1024)
        return fail(QStringLiteral("--max-body-mb must be a whole number from 1 to 1024; got '%1'")
                            .arg(parser.value(maxBody)));
    parsed.options.maxBodyBytes = qsizetype(megabytes) << 20;
    const int graceSeconds = parser.value(grace).toInt(&valid);
    if (!valid || graceSeconds < 0 || graceSeconds > 24 * 3600)
        return fail(QStringLiteral("--grace must be a whole number of seconds from 0 to 86400; got '%1'")
                            .arg(parser.value(grace)));
    parsed.options.inFlightGraceMs = qint64(graceSeconds) * 1000;
    parsed.tls = CollectTls{parser.value(certificate), parser.value(key)};
    parsed.registry = parser.value(QStringLiteral("registry"));
    return parsed;
}

// "12 requests, 40 spans stored, 1 refused (400: 1)": what a person watching the terminal wants.
class Totals
{
public:
    void count(int status) { ++(status < 300 ? m_ok : m_refused); }
    QString line() const { return QStringLiteral("%1 requests stored, %2 refused").arg(m_ok).arg(m_refused); }

private:
    qint64 m_ok = 0;
    qint64 m_refused = 0;
};

// A class confirmed in the console is saved to the user's registry: the request after it is read
// with it, so its calls are keyed as the stored calls the console just read again. Asked before
// each request; a file that changed since is read again.
std::function<std::optional<RegistrySelection>()> registryWatch(const RegistrySource &source,
                                                                QTextStream &err)
{
    const auto stamp = [file = source.userFile] {
        const QFileInfo info(file);
        return info.exists()
                ? QStringLiteral("%1/%2").arg(info.lastModified().toMSecsSinceEpoch()).arg(info.size())
                : QString();
    };
    return [&err, source, stamp, seen = stamp()]() mutable -> std::optional<RegistrySelection> {
        const QString now = stamp();
        if (now == seen)
            return std::nullopt;
        seen = now;
        // A file gone or broken keeps the classes read before: dropping them would judge a tool a
        // person confirmed as unknown again, and its next retry would go uncaught.
        const auto keep = [&err, &source](const QStringList &why) {
            for (const QString &line : why)
                err << "verity collect: " << line << "\n";
            err << "verity collect: the registry read before stays in force until " << source.userFile
                << " can be read again\n";
            err.flush();
            return std::optional<RegistrySelection>();
        };
        if (now.isEmpty())
            return keep({source.userFile + QStringLiteral(": the file is gone")});
        const Expected<RegistryChoice> again = chooseRegistry(source);
        if (!again)
            return keep({again.message()});
        if (!again->warnings.isEmpty())
            return keep(again->warnings);
        err << "verity collect: read again: " << source.userFile << "\n";
        err.flush();
        return again->selection;
    };
}

} // namespace

int runCollectCommand(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    int exitCode = 0;
    SubcommandLine commandLine(QStringLiteral("collect"), QString());
    const std::optional<Arguments> parsed = parse(commandLine, arguments, exitCode);
    if (!parsed)
        return exitCode;
    const auto cannotRun = [&err](const QString &message) {
        err << "verity collect: " << message << "\n";
        return 2;
    };

    const RegistrySource source{parsed->registry, defaultUserRegistryPath()};
    const Expected<RegistryChoice> choice = chooseRegistry(source);
    if (!choice)
        return cannotRun(choice.message());
    for (const QString &warning : choice->warnings)
        err << "verity collect: " << warning << "\n";
    Expected<std::unique_ptr<Store>> store = openStore(parsed->database);
    if (!store)
        return cannotRun(store.message());
    if (Expected<void> allowed =
                requireRole(**store, TeamRole::Support, QStringLiteral("receiving telemetry"));
        !allowed)
        return cannotRun(allowed.message());

    // On a team database the feed's watch is what reconnects after the server went away: until
    // then requests are answered 503 and the exporters send them again. The outage is said once,
    // here, and Qt's and libpq's own lines about each failed statement are left out.
    quietDriverChatter();
    ChangeFeed *feed = (*store)->changeFeed();
    CollectOptions options = parsed->options;
    options.changedRegistries = registryWatch(source, err);
    CollectServer server(**store, choice->selection, options);
    Expected<quint16> port = server.listenOn(parsed->address, parsed->port, parsed->tls);
    if (!port)
        return cannotRun(port.message());
    TerminalProgress progress(err, true);
    Totals totals;
    QObject::connect(&server, &CollectServer::served, &server, [&](const QString &line, int status) {
        progress.clear();
        err << line << Qt::endl;
        totals.count(status);
        progress.showText(totals.line());
    });
    QObject::connect(&server, &CollectServer::noted, &server, [&](const QString &line) {
        progress.clear();
        err << line << Qt::endl;
        progress.showText(totals.line());
    });
    if (feed) {
        // Said once an outage, however often the watch's reason for it changes.
        QObject::connect(feed, &ChangeFeed::unreachable, &server, [&](const QString &reason) {
            if (server.storeAway())
                return;
            server.setStoreAway(true);
            progress.clear();
            err << "verity collect: the database is not answering (" << reason
                << "); requests are answered 503, so that their exporters send them again, until it is back"
                << Qt::endl;
            progress.showText(totals.line());
        });
        QObject::connect(feed, &ChangeFeed::reachable, &server, [&] {
            server.setStoreAway(false);
            progress.clear();
            err << "verity collect: the database answers again; requests are stored" << Qt::endl;
            progress.showText(totals.line());
        });
    }
    // A stop finishes the request in hand (requests are answered one at a time, between
    // signals), answers any already waiting with 503 so their exporters send them again
    // later, then quits.
    const bool watched = watchStopSignals(&server, [&server] {
        server.refuseFromNow();
        QTimer::singleShot(200, QCoreApplication::instance(), &QCoreApplication::quit);
    });
    if (!watched)
        err << "verity collect: cannot watch for SIGINT and SIGTERM; stop it with SIGKILL\n";

    const bool tls = !parsed->tls.certificateFile.isEmpty();
    const QString host = parsed->address.protocol() == QAbstractSocket::IPv6Protocol
            ? QStringLiteral("[%1]").arg(parsed->address.toString())
            : parsed->address.toString();
    if (!parsed->address.isLoopback() && parsed->options.token.isEmpty())
        err << "verity collect: listening on " << host
            << " without --token: anyone who can reach this port can "
            << "write into the database\n"
            << Qt::flush;
    out << "listening on " << (tls ? "https" : "http") << "://" << host << ":" << *port << "\n"
        << "traces: POST /v1/traces (OTLP/HTTP, protobuf or JSON); events: POST /v1/events (Verity JSONL)\n"
        << "database: " << (*store)->location() << "\n"
        << (parsed->options.token.isEmpty() ? "no token required\n" : "bearer token required\n") << Qt::flush;

    const int result = QCoreApplication::exec();
    progress.clear();
    err << "verity collect: stopped after " << server.requestsAnswered() << " requests\n" << Qt::flush;
    return result;
}

} // namespace verity
