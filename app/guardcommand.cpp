// verity guard [--db PATH|URI] [--registry NAME|FILE] -- COMMAND [ARGS…]: an MCP client starts
// the guard in place of its stdio server; the guard starts COMMAND and relays between them,
// recording every tools/call and holding the repeat of a write whose outcome is unknown. Its
// stdout is the MCP channel, so everything it says goes to stderr.
// verity guard --listen ADDR:PORT --upstream URL: the same in front of a Streamable HTTP server;
// its first line on stdout says where it listens.

#include "guardcommand.h"

#include "domain/registrychoice.h"
#include "driverchatter.h"
#include "guard/httpguard.h"
#include "guard/stdioguard.h"
#include "listenaddress.h"
#include "registryoption.h"
#include "resolution/operatoridentity.h"
#include "stopsignals.h"
#include "store/storefactory.h"
#include "subcommandline.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QTextStream>
#include <QTimer>
#include <QUuid>

#include <memory>

namespace verity {

namespace {

struct Arguments
{
    QString database;
    QString registry;
    qint64 deadlineMs = 60000;
    bool passWhenStoreDown = false;
    QString program;
    QStringList programArguments;
    // Streamable HTTP instead of stdio
    std::optional<std::pair<QHostAddress, quint16>> listen;
    HttpGuardOptions http;
};

std::optional<Arguments> parse(SubcommandLine &line, const QStringList &arguments, int &exitCode)
{
    QCommandLineParser &parser = line.parser();
    parser.setApplicationDescription(QStringLiteral(
            "Stand between an agent and its MCP tools: start COMMAND as the real stdio MCP server and relay\n"
            "every message both ways, recording each tools/call in the database as it happens. A write "
            "whose\n"
            "intent is in flight or unknown anywhere in the database is not sent: the agent is told a "
            "person\n"
            "is checking it. One that a person found performed is answered without sending. An intent\n"
            "is the tool and its arguments, with the conversation when the client names one."));
    const QCommandLineOption db(QStringLiteral("db"),
                                QStringLiteral("The database: a file, or a PostgreSQL URI."),
                                QStringLiteral("PATH|URI"), defaultStoreLocation());
    const QCommandLineOption deadline(
            QStringLiteral("deadline"),
            QStringLiteral("How long a write sent waits for its answer before its outcome is unknown and it "
                           "is escalated."),
            QStringLiteral("SECONDS"), QStringLiteral("60"));
    const QCommandLineOption storeDown(
            QStringLiteral("when-store-down"),
            QStringLiteral("What a write does while the database cannot record it: refuse (the default: the "
                           "agent is told it was not sent) or pass (sent unrecorded and unguarded)."),
            QStringLiteral("refuse|pass"), QStringLiteral("refuse"));
    const QCommandLineOption listen(
            QStringLiteral("listen"),
            QStringLiteral(
                    "Serve MCP over Streamable HTTP at http://ADDR:PORT/mcp instead of stdio, in front of "
                    "--upstream. Only loopback unless an address is given; port 0 picks a free one."),
            QStringLiteral("ADDR:PORT"));
    const QCommandLineOption upstream(
            QStringLiteral("upstream"),
            QStringLiteral("The Streamable HTTP MCP server to guard: its endpoint URL."),
            QStringLiteral("URL"));
    const QCommandLineOption token(
            QStringLiteral("token"),
            QStringLiteral(
                    "Require \"Authorization: Bearer TOKEN\" of every client (or set VERITY_GUARD_TOKEN); "
                    "it is never passed on."),
            QStringLiteral("TOKEN"));
    const QCommandLineOption upstreamToken(
            QStringLiteral("upstream-token"),
            QStringLiteral(
                    "Send \"Authorization: Bearer TOKEN\" to the upstream server, and only there (or set "
                    "VERITY_UPSTREAM_TOKEN). Without it a client's own Authorization passes, unless "
                    "--token took it."),
            QStringLiteral("TOKEN"));
    parser.addOptions({db, deadline, storeDown, registryOption(), listen, upstream, token, upstreamToken});
    parser.addPositionalArgument(QStringLiteral("COMMAND"),
                                 QStringLiteral("The MCP server to start, after --, with its arguments."),
                                 QStringLiteral("-- COMMAND [ARGS…]"));
    const auto fail = [&](const QString &message) -> std::optional<Arguments> {
        exitCode = line.fail(message);
        return std::nullopt;
    };
    if (std::optional<int> done = line.parse(
                arguments,
                QStringLiteral("Usage: verity guard [--db PATH|URI] [--registry NAME|FILE] [--deadline "
                               "SECONDS] [--when-store-down refuse|pass] -- COMMAND [ARGS…]\n"
                               "       verity guard [options] --listen ADDR:PORT --upstream URL [--token "
                               "TOKEN] [--upstream-token TOKEN]"))) {
        exitCode = *done;
        return std::nullopt;
    }
    Arguments parsed;
    parsed.database = parser.value(db);
    parsed.registry = parser.value(QStringLiteral("registry"));
    bool valid = false;
    const int seconds = parser.value(deadline).toInt(&valid);
    if (!valid || seconds < 1 || seconds > 24 * 3600)
        return fail(QStringLiteral("--deadline must be a whole number of seconds from 1 to 86400; got '%1'")
                            .arg(parser.value(deadline)));
    parsed.deadlineMs = qint64(seconds) * 1000;
    const QString down = parser.value(storeDown);
    if (down != QLatin1String("refuse") && down != QLatin1String("pass"))
        return fail(QStringLiteral("--when-store-down must be refuse or pass; got '%1'").arg(down));
    parsed.passWhenStoreDown = down == QLatin1String("pass");
    const QStringList command = parser.positionalArguments();
    if (parser.isSet(listen) || parser.isSet(upstream)) {
        if (!command.isEmpty())
            return fail(QStringLiteral(
                    "give either --listen and --upstream (a Streamable HTTP server) or -- COMMAND "
                    "(a stdio server), not both"));
        parsed.listen = parseListen(parser.value(listen));
        if (!parsed.listen)
            return fail(QStringLiteral(
                                "--listen expects ADDR:PORT (127.0.0.1:8931, [::1]:8931) or a port; got '%1'")
                                .arg(parser.value(listen)));
        parsed.http.upstream = QUrl(parser.value(upstream), QUrl::StrictMode);
        if (!parsed.http.upstream.isValid()
            || (parsed.http.upstream.scheme() != QLatin1String("http")
                && parsed.http.upstream.scheme() != QLatin1String("https"))
            || parsed.http.upstream.host().isEmpty())
            return fail(QStringLiteral("--upstream expects the server's MCP endpoint, such as "
                                       "http://127.0.0.1:3001/mcp; got '%1'")
                                .arg(parser.value(upstream)));
        parsed.http.token =
                parser.isSet(token) ? parser.value(token) : qEnvironmentVariable("VERITY_GUARD_TOKEN");
        parsed.http.upstreamToken = parser.isSet(upstreamToken)
                ? parser.value(upstreamToken)
                : qEnvironmentVariable("VERITY_UPSTREAM_TOKEN");
        if ((parser.isSet(token) && parsed.http.token.trimmed().isEmpty())
            || (parser.isSet(upstreamToken) && parsed.http.upstreamToken.trimmed().isEmpty()))
            return fail(QStringLiteral("a token must not be empty"));
        return parsed;
    }
    if (command.isEmpty() || command.first().isEmpty())
        return fail(QStringLiteral("name the MCP server to start after --, for example: verity guard -- node "
                                   "server.mjs"));
    parsed.program = command.first();
    parsed.programArguments = command.mid(1);
    return parsed;
}

// The store, opened on first need and again after it could not be: a guard starts even while
// its database is away, and refuses writes until it is back.
class StoreSource
{
public:
    StoreSource(QString location, RegistrySelection registries, qint64 deadlineMs, QTextStream &err)
        : m_location(std::move(location))
        , m_registries(std::move(registries))
        , m_deadlineMs(deadlineMs)
        , m_err(err)
    {}

    GuardRecorder *recorder(QString &whyNot)
    {
        if (m_recorder)
            return m_recorder.get();
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        if (now - m_lastTry < 2000) {
            whyNot = m_whyNot;
            return nullptr;
        }
        m_lastTry = now;
        Expected<std::unique_ptr<Store>> store = openStore(m_location);
        Expected<void> allowed = store
                ? requireRole(**store, TeamRole::Support, QStringLiteral("recording tool calls"))
                : Expected<void>(store.error());
        if (!allowed) {
            m_lastError = allowed.error().code;
            if (m_whyNot != allowed.message())
                m_err << "verity guard: the database cannot record calls now: " << allowed.message()
                      << Qt::endl;
            m_saidAway = true;
            m_whyNot = whyNot =
                    QStringLiteral("Verity's database cannot be reached (%1)").arg(allowed.message());
            return nullptr;
        }
        if (m_saidAway)
            m_err << "verity guard: the database records calls again: "
                  << storeDisplayName((*store)->location()) << Qt::endl;
        m_saidAway = false;
        m_whyNot.clear();
        m_store = std::move(*store);
        // Every write the agent sends waits on a commit of this store.
        m_store->keepUpkeepOffCommits();
        // Answers go through a session of their own, so no call waits while they are stored.
        m_recorder = std::make_unique<GuardRecorder>(
                *m_store, [location = m_location] { return openStore(location); }, m_registries, m_deadlineMs,
                [this](const QString &why) { m_err << "verity guard: " << why << Qt::endl; });
        return m_recorder.get();
    }

    // The database named can never record calls as it is (a folder, a file of another kind, a
    // database of a newer Verity, a user whose role may not record): unlike one that cannot be
    // reached now, no wait mends it.
    bool neverUsable() const
    {
        return !m_recorder && (m_lastError == InputErrc::Invalid || reopeningCannotMend(m_lastError));
    }

    bool recording() const { return m_recorder != nullptr; }

    // As a person may read it: a PostgreSQL URI without its password.
    QString location() const { return storeDisplayName(m_store ? m_store->location() : m_location); }

    // Its last operation failed: opened again before the next, in case the server went away.
    void reset()
    {
        m_recorder.reset();
        m_store.reset();
        m_lastTry = -1000000;
        m_whyNot = QStringLiteral("the last record failed");
    }

private:
    QString m_location;
    RegistrySelection m_registries;
    qint64 m_deadlineMs;
    QTextStream &m_err;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<GuardRecorder> m_recorder;
    qint64 m_lastTry = -1000000;
    QString m_whyNot;
    bool m_saidAway = false; // "cannot record calls now" was said, and "again" is not yet
    std::error_code m_lastError;
};

// A write whose deadline passed is escalated even when nothing else happens.
void watchOverdue(QTimer &timer, StoreSource &stores, QTextStream &err)
{
    QObject::connect(&timer, &QTimer::timeout, &timer, [&stores, &err] {
        QString ignored;
        if (GuardRecorder *recorder = stores.recorder(ignored)) {
            if (Expected<int> escalated = recorder->escalateOverdue(); escalated && *escalated > 0)
                err << "verity guard: " << *escalated
                    << " write(s) got no answer by the deadline; their outcome "
                    << "is unknown and they are escalated" << Qt::endl;
        }
    });
    timer.start(1000);
}

// What the start line says the guard records into: a database it cannot use yet is named, with
// what happens to writes until it can.
QString recordingLine(const StoreSource &stores, bool passWhenDown)
{
    if (stores.recording())
        return QStringLiteral("recording into %1").arg(stores.location());
    return QStringLiteral("not recording yet: %1 is tried again at each write, which is %2 until then")
            .arg(stores.location(),
                 passWhenDown ? QStringLiteral("sent unrecorded") : QStringLiteral("refused"));
}

int serveHttp(const Arguments &parsed, const McpRelay::RecorderSource &recorder, const RelayOptions &relay,
              StoreSource &stores, QTextStream &err)
{
    HttpGuardOptions options = parsed.http;
    options.relay = relay;
    HttpGuard guard(recorder, options);
    QObject::connect(&guard, &HttpGuard::logged, &guard,
                     [&err](const QString &line) { err << "verity guard: " << line << Qt::endl; });
    const Expected<quint16> port = guard.listen(parsed.listen->first, parsed.listen->second);
    if (!port) {
        err << "verity guard: " << port.message() << "\n";
        return 2;
    }
    const QHostAddress &address = parsed.listen->first;
    const QString host = address.protocol() == QAbstractSocket::IPv6Protocol
            ? QStringLiteral("[%1]").arg(address.toString())
            : address.toString();
    if (!address.isLoopback() && options.token.isEmpty())
        err << "verity guard: listening on " << host
            << " without --token: anyone who can reach this port can "
            << "call the tools behind it\n";
    err << "verity guard: " << recordingLine(stores, relay.passWhenStoreDown) << "; guarding "
        << options.upstream.toString() << Qt::endl;
    QTextStream(stdout) << "listening on http://" << host << ":" << *port << "/mcp" << Qt::endl;
    QTimer overdue;
    watchOverdue(overdue, stores, err);
    watchStopSignals(&guard, [] { QCoreApplication::exit(0); });
    return QCoreApplication::exec();
}

} // namespace

int runGuardCommand(const QStringList &arguments)
{
    QTextStream err(stderr);
    int exitCode = 0;
    SubcommandLine commandLine(QStringLiteral("guard"), QString());
    const std::optional<Arguments> parsed = parse(commandLine, arguments, exitCode);
    if (!parsed)
        return exitCode;
    const Expected<RegistryChoice> choice =
            chooseRegistry(RegistrySource{parsed->registry, defaultUserRegistryPath()});
    if (!choice) {
        err << "verity guard: " << choice.message() << "\n";
        return 2;
    }
    for (const QString &warning : choice->warnings)
        err << "verity guard: " << warning << "\n";
    quietDriverChatter();

    // A mistyped path would make a new database no console reads, and hold nothing the team's
    // database holds: a new file, yes; a new folder, no (but the default's, made on first use).
    if (parsed->database.trimmed().isEmpty()) {
        err << "verity guard: not started: --db is empty; name a database file or a PostgreSQL URI\n";
        return 2;
    }
    if (isFileLocation(parsed->database) && parsed->database != defaultStoreLocation()
        && !QFileInfo(parsed->database).absoluteDir().exists()) {
        err << "verity guard: not started: --db " << parsed->database << ": the folder "
            << QFileInfo(parsed->database).absolutePath()
            << " does not exist; name a database file in a folder that does\n";
        return 2;
    }
    StoreSource stores(parsed->database, choice->selection, parsed->deadlineMs, err);
    QString whyNot; // said by the store source itself
    stores.recorder(whyNot); // opened now, so a database that cannot be reached is said at start
    if (stores.neverUsable()) {
        err << "verity guard: not started: --db must name a Verity database this user can write\n";
        return 2;
    }
    const QString session = QUuid::createUuid().toString(QUuid::Id128).left(8);
    RelayOptions options;
    options.registries = choice->selection;
    options.sessionId = QStringLiteral("mcp-") + session;
    options.callPrefix = session;
    options.passWhenStoreDown = parsed->passWhenStoreDown;
    options.recorderFailed = [&stores] { stores.reset(); };
    const McpRelay::RecorderSource recorder = [&stores](QString &why) { return stores.recorder(why); };
    if (parsed->passWhenStoreDown)
        err << "verity guard: --when-store-down pass: while the database cannot record them, writes are sent "
               "unrecorded and unguarded\n";
    if (parsed->listen)
        return serveHttp(*parsed, recorder, options, stores, err);
    StdioGuard guard(recorder, options);
    QObject::connect(&guard, &StdioGuard::logged, &guard,
                     [&err](const QString &line) { err << "verity guard: " << line << Qt::endl; });
    QObject::connect(&guard, &StdioGuard::finished, QCoreApplication::instance(), &QCoreApplication::exit);
    err << "verity guard: " << recordingLine(stores, options.passWhenStoreDown) << "; session "
        << options.sessionId << "\n"
        << Qt::flush;
    if (Expected<void> started = guard.start(parsed->program, parsed->programArguments); !started) {
        err << "verity guard: " << started.message() << "\n";
        return 127;
    }
    QTimer overdue;
    watchOverdue(overdue, stores, err);
    watchStopSignals(&guard, [] { QCoreApplication::exit(0); });
    return QCoreApplication::exec();
}

} // namespace verity
