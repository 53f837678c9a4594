#include "scalebenchmark.h"

#include "largeticket.h"
#include "scaledataset.h"
#include "support/postgrescluster.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QMap>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>

#include <cmath>
#include <optional>

namespace verity::bench {

namespace {

enum class Target { None, AtMost, AtLeast };

struct FigureSpec
{
    const char *name;
    const char *label;
    const char *unit;
    Target target = Target::None;
    double limit = 0;
};

// In the order they are printed. Interactive figures have the 100 ms a person perceives as instant.
const FigureSpec figureSpecs[] = {
        {"import_calls_per_s", "import, through the importer", "calls/s"},
        {"bare_calls_per_s", "import, the floor (INSERTs, or COPY)", "calls/s"},
        {"import_ratio", "importer / bare", "", Target::AtLeast, 0.5},
        {"import_rss_peak_mb", "importer peak RSS", "MB"},
        {"open_to_first_page_ms", "open to first queue page painted", "ms", Target::AtMost, 100},
        {"open_store_ms", "  of which opening the database", "ms"},
        {"open_window_built_ms", "  of which building the window", "ms"},
        {"queue_walk_ms", "idle walk placing the queue's anchors", "ms"},
        {"filter_needs_attention_ms", "filter: needs attention", "ms", Target::AtMost, 100},
        {"filter_unknown_ms", "filter: unknown", "ms", Target::AtMost, 100},
        {"filter_repeated_intent_ms", "filter: repeated intent", "ms", Target::AtMost, 100},
        {"filter_all_ms", "filter: all tickets again", "ms", Target::AtMost, 100},
        {"search_order_ms", "search by order id", "ms", Target::AtMost, 100},
        {"search_seller_ms", "search by a seller's name", "ms", Target::AtMost, 100},
        {"search_seller_middle_ms", "  then jump to the middle of its matches", "ms", Target::AtMost, 100},
        {"search_seller_end_ms", "  then to the end of its matches", "ms", Target::AtMost, 100},
        {"search_seller_attention_ms", "  then filter: needs attention", "ms", Target::AtMost, 100},
        {"search_seller_all_ms", "  then filter: all tickets again", "ms", Target::AtMost, 100},
        {"search_cleared_ms", "search cleared", "ms", Target::AtMost, 100},
        {"jump_middle_ms", "jump to the middle of the queue", "ms", Target::AtMost, 100},
        {"jump_end_ms", "jump to the end of the queue", "ms", Target::AtMost, 100},
        {"open_last_ticket_ms", "open the last ticket", "ms", Target::AtMost, 100},
        {"escalations_ms", "count and list escalations", "ms", Target::AtMost, 100},
        {"escalations_end_ms", "jump to the last escalation", "ms", Target::AtMost, 100},
        {"rss_peak_mb", "window peak RSS", "MB", Target::AtMost, 300},
        {"large_ticket_open_ms", "open a ticket with a 50 MB message and a 5 MB result", "ms", Target::AtMost,
         1000},
        {"large_ticket_extra_mb", "  memory the open added", "MB", Target::AtMost, 100},
        {"reconcile_ms", "reconcile refunds against the sandbox", "ms"},
        {"reconcile_fetch_ms", "  of which the provider's statement", "ms"},
        {"reconcile_payouts", "  refunds reconciled", ""},
};

using Figures = QMap<QString, double>;

struct Scale
{
    qint64 tickets = 0;
    ScaleDatasetShape shape;
    Figures figures;
};

QString grouped(double value, int decimals = 0)
{
    return QLocale(QLocale::English).toString(value, 'f', decimals);
}

bool met(const FigureSpec &spec, double value)
{
    switch (spec.target) {
    case Target::None:
        return true;
    case Target::AtMost:
        return value <= spec.limit;
    case Target::AtLeast:
        return value >= spec.limit;
    }
    return true;
}

QString targetText(const FigureSpec &spec)
{
    switch (spec.target) {
    case Target::None:
        return {};
    case Target::AtMost:
        return QStringLiteral("<= %1").arg(spec.limit);
    case Target::AtLeast:
        return QStringLiteral(">= %1").arg(spec.limit);
    }
    return {};
}

QString valueText(const FigureSpec &spec, double value)
{
    const QString unit = QString::fromLatin1(spec.unit);
    if (unit == QLatin1String("ms") || unit == QLatin1String("MB"))
        return grouped(value, value < 100 ? 1 : 0);
    if (unit.isEmpty() && value < 10)
        return grouped(value, 2);
    return grouped(value);
}

// Runs this program again with `arguments`; its "name value" lines become figures.
std::optional<Figures> child(const QStringList &arguments, QString *error)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::SeparateChannels);
    process.start(QCoreApplication::applicationFilePath(), arguments);
    if (!process.waitForFinished(-1) || process.exitStatus() != QProcess::NormalExit
        || process.exitCode() != 0) {
        *error = QStringLiteral("verity-bench %1: %2%3")
                         .arg(arguments.first(), QString::fromUtf8(process.readAllStandardOutput()).trimmed(),
                              QString::fromUtf8(process.readAllStandardError()).trimmed());
        return std::nullopt;
    }
    Figures figures;
    const QStringList lines =
            QString::fromUtf8(process.readAllStandardOutput()).split(u'\n', Qt::SkipEmptyParts);
    for (const QString &line : lines) {
        const QStringList parts = line.split(u' ');
        if (parts.size() == 2)
            figures.insert(parts.at(0), parts.at(1).toDouble());
    }
    return figures;
}

void progress(const QString &text)
{
    QTextStream(stderr) << text << '\n';
}

// Where each part's database is: a file in the folder, or a database of its own in the
// throwaway cluster (`cluster` not null). Empty, with the reason in `error`, when it cannot be.
QString databaseFor(const QString &name, const QDir &folder, test::PostgresCluster *cluster, QString *error)
{
    if (!cluster)
        return folder.filePath(name + QStringLiteral(".sqlite"));
    QString location = cluster->createDatabase(QString(name).replace(u'-', u'_'));
    if (location.isEmpty())
        *error = cluster->error();
    return location;
}

std::optional<Scale> measure(qint64 tickets, const ScaleOptions &options, const QDir &folder,
                             test::PostgresCluster *cluster, QString *error)
{
    Scale scale;
    scale.tickets = tickets;
    const QString stem = folder.filePath(QStringLiteral("scale-%1").arg(tickets));
    const QString jsonl = stem + QStringLiteral(".jsonl");
    const QString database = databaseFor(QStringLiteral("scale-%1").arg(tickets), folder, cluster, error);
    const QString bare = databaseFor(QStringLiteral("scale-%1-bare").arg(tickets), folder, cluster, error);
    if (database.isEmpty() || bare.isEmpty())
        return std::nullopt;
    const auto removeFiles = [&] {
        for (const QString &file : {jsonl, database, bare})
            for (const char *suffix : {"", "-wal", "-shm"})
                QFile::remove(file + QString::fromLatin1(suffix));
    };
    removeFiles();

    progress(QStringLiteral("%1 tickets: generating").arg(grouped(double(tickets))));
    scale.shape = writeScaleDataset(jsonl, tickets, options.seed);
    if (scale.shape.tickets != tickets) {
        *error = QStringLiteral("cannot write %1").arg(jsonl);
        return std::nullopt;
    }
    progress(QStringLiteral("%1 tickets: importing %2 MB")
                     .arg(grouped(double(tickets)), grouped(double(scale.shape.bytes) / 1048576.0)));
    std::optional<Figures> imported = child({QStringLiteral("import-one"), jsonl, database}, error);
    if (!imported)
        return std::nullopt;
    QFile::remove(jsonl);
    const double importSeconds = imported->value(QStringLiteral("ms")) / 1000.0;
    scale.figures.insert(QStringLiteral("import_calls_per_s"), double(scale.shape.toolCalls) / importSeconds);
    scale.figures.insert(QStringLiteral("import_rss_peak_mb"),
                         imported->value(QStringLiteral("rss_peak_kb")) / 1024.0);

    progress(QStringLiteral("%1 tickets: %2")
                     .arg(grouped(double(tickets)),
                          cluster ? QStringLiteral("COPY") : QStringLiteral("bare INSERTs")));
    std::optional<Figures> copied = child(
            {cluster ? QStringLiteral("bulk-load") : QStringLiteral("bare-copy"), database, bare}, error);
    if (!copied)
        return std::nullopt;
    for (const char *suffix : {"", "-wal", "-shm"})
        QFile::remove(bare + QString::fromLatin1(suffix));
    const double bareSeconds = copied->value(QStringLiteral("insert_ms")) / 1000.0;
    const double bareRate = copied->value(QStringLiteral("tool_calls")) / bareSeconds;
    scale.figures.insert(QStringLiteral("bare_calls_per_s"), bareRate);
    scale.figures.insert(QStringLiteral("import_ratio"),
                         scale.figures.value(QStringLiteral("import_calls_per_s")) / bareRate);

    if (cluster) {
        // The window is timed on a database at rest, as a team's is between imports: the bare
        // copy goes and the imported one is vacuumed now, so that autovacuum's pass over millions
        // of new rows in both (minutes of a core) does not run beside the window's reads.
        progress(QStringLiteral("%1 tickets: vacuuming").arg(grouped(double(tickets))));
        const QString name = QStringLiteral("scale_%1").arg(tickets);
        if (!cluster->execute(QStringLiteral("DROP DATABASE %1_bare").arg(name))
            || !cluster->execute(QStringLiteral("VACUUM (ANALYZE)"), name)) {
            *error = cluster->error();
            return std::nullopt;
        }
    }
    progress(QStringLiteral("%1 tickets: the window").arg(grouped(double(tickets))));
    std::optional<Figures> window =
            child({QStringLiteral("window"), database, scaleOrderId(tickets / 2)}, error);
    if (!window)
        return std::nullopt;
    scale.figures.insert(*window);

    progress(QStringLiteral("%1 tickets: a ticket with a 50 MB message").arg(grouped(double(tickets))));
    const QString largeFile = folder.filePath(QStringLiteral("large-ticket.jsonl"));
    const QString largeDatabase =
            databaseFor(QStringLiteral("large-ticket-%1").arg(tickets), folder, cluster, error);
    if (largeDatabase.isEmpty())
        return std::nullopt;
    for (const char *suffix : {"", "-wal", "-shm"})
        QFile::remove(largeDatabase + QString::fromLatin1(suffix));
    if (!writeLargeTicket(largeFile, 50)) {
        *error = QStringLiteral("cannot write %1").arg(largeFile);
        return std::nullopt;
    }
    if (!child({QStringLiteral("import-one"), largeFile, largeDatabase}, error))
        return std::nullopt;
    QFile::remove(largeFile);
    std::optional<Figures> large = child({QStringLiteral("large-ticket"), largeDatabase}, error);
    for (const char *suffix : {"", "-wal", "-shm"})
        QFile::remove(largeDatabase + QString::fromLatin1(suffix));
    if (!large)
        return std::nullopt;
    scale.figures.insert(*large);

    progress(QStringLiteral("%1 tickets: reconciliation").arg(grouped(double(tickets))));
    std::optional<Figures> reconciled =
            child({QStringLiteral("reconcile"), database, QString::number(options.refunds)}, error);
    if (!reconciled)
        return std::nullopt;
    scale.figures.insert(*reconciled);
    if (!options.keep)
        removeFiles();
    return scale;
}

void printScale(QTextStream &out, const Scale &scale, quint32 seed, const QString &backend)
{
    const ScaleDatasetShape &shape = scale.shape;
    out << QStringLiteral(
                   "\n%1 tickets on %8 (seed %2): %3 tool calls, %4 writes, %5 unknown, %6 tickets with a "
                   "repeated intent, %7 MB of JSONL\n")
                    .arg(grouped(double(scale.tickets)))
                    .arg(seed)
                    .arg(grouped(double(shape.toolCalls)), grouped(double(shape.writes)),
                         grouped(double(shape.unknownWrites)), grouped(double(shape.repeatedTickets)),
                         grouped(double(shape.bytes) / 1048576.0),
                         backend == QLatin1String("postgresql") ? QStringLiteral("PostgreSQL")
                                                                : QStringLiteral("SQLite"));
    for (const FigureSpec &spec : figureSpecs) {
        if (!scale.figures.contains(QString::fromLatin1(spec.name)))
            continue;
        const double value = scale.figures.value(QString::fromLatin1(spec.name));
        out << QStringLiteral("  %1 %2 %3 %4 %5\n")
                        .arg(QString::fromLatin1(spec.label), -40)
                        .arg(valueText(spec, value), 12)
                        .arg(QString::fromLatin1(spec.unit), -8)
                        .arg(targetText(spec), -8)
                        .arg(spec.target == Target::None ? QString()
                                     : met(spec, value)  ? QStringLiteral("met")
                                                         : QStringLiteral("MISSED"));
    }
    out.flush();
}

void printGrowth(QTextStream &out, const QList<Scale> &scales)
{
    out << QStringLiteral("\n%1").arg(QStringLiteral("figure"), -40);
    for (const Scale &scale : scales)
        out << QStringLiteral(" %1").arg(grouped(double(scale.tickets)), 12);
    out << QStringLiteral("  target\n");
    for (const FigureSpec &spec : figureSpecs) {
        out << QStringLiteral("%1").arg(QString::fromLatin1(spec.label), -40);
        for (const Scale &scale : scales) {
            const QString name = QString::fromLatin1(spec.name);
            out << QStringLiteral(" %1").arg(scale.figures.contains(name)
                                                     ? valueText(spec, scale.figures.value(name))
                                                     : QStringLiteral("-"),
                                             12);
        }
        out << QStringLiteral("  %1 %2\n").arg(targetText(spec), QString::fromLatin1(spec.unit));
    }
}

QJsonObject scaleJson(const Scale &scale)
{
    QJsonArray figures;
    for (const FigureSpec &spec : figureSpecs) {
        const QString name = QString::fromLatin1(spec.name);
        if (!scale.figures.contains(name))
            continue;
        const double value = scale.figures.value(name);
        QJsonObject figure{{QStringLiteral("name"), name},
                           {QStringLiteral("value"), value},
                           {QStringLiteral("unit"), QString::fromLatin1(spec.unit)}};
        if (spec.target != Target::None) {
            figure.insert(QStringLiteral("target"), targetText(spec));
            figure.insert(QStringLiteral("met"), met(spec, value));
        }
        figures.append(figure);
    }
    const ScaleDatasetShape &shape = scale.shape;
    return {{QStringLiteral("tickets"), scale.tickets},
            {QStringLiteral("tool_calls"), shape.toolCalls},
            {QStringLiteral("writes"), shape.writes},
            {QStringLiteral("unknown_writes"), shape.unknownWrites},
            {QStringLiteral("repeated_intent_tickets"), shape.repeatedTickets},
            {QStringLiteral("jsonl_bytes"), shape.bytes},
            {QStringLiteral("figures"), figures}};
}

} // namespace

int runScaleBenchmark(const ScaleOptions &options)
{
    QTextStream out(stdout);
    std::optional<QTemporaryDir> temporary;
    QString folderPath = options.folder;
    if (folderPath.isEmpty()) {
        temporary.emplace();
        folderPath = temporary->path();
    }
    if (!QDir().mkpath(folderPath)) {
        QTextStream(stderr) << "verity-bench: cannot create the folder " << folderPath << '\n';
        return 2;
    }
    std::optional<test::PostgresCluster> cluster;
    if (options.backend == QLatin1String("postgresql")) {
        progress(QStringLiteral("starting a throwaway PostgreSQL cluster"));
        cluster.emplace();
        if (!cluster->start()) {
            QTextStream(stderr) << "verity-bench: " << cluster->error() << '\n';
            return 2;
        }
    }
    QList<Scale> scales;
    bool allMet = true;
    for (qint64 tickets : options.tickets) {
        QString error;
        std::optional<Scale> scale =
                measure(tickets, options, QDir(folderPath), cluster ? &*cluster : nullptr, &error);
        if (!scale) {
            QTextStream(stderr) << "verity-bench: " << error << '\n';
            return 2;
        }
        for (const FigureSpec &spec : figureSpecs)
            if (scale->figures.contains(QString::fromLatin1(spec.name)))
                allMet = allMet && met(spec, scale->figures.value(QString::fromLatin1(spec.name)));
        if (!options.json)
            printScale(out, *scale, options.seed, options.backend);
        scales.append(*scale);
    }
    if (options.json) {
        QJsonArray array;
        for (const Scale &scale : std::as_const(scales))
            array.append(scaleJson(scale));
        out << QJsonDocument(QJsonObject{{QStringLiteral("seed"), qint64(options.seed)},
                                         {QStringLiteral("backend"), options.backend},
                                         {QStringLiteral("all_targets_met"), allMet},
                                         {QStringLiteral("scales"), array}})
                        .toJson();
    } else if (scales.size() > 1) {
        printGrowth(out, scales);
    }
    return allMet ? 0 : 1;
}

} // namespace verity::bench
