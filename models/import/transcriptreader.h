#pragma once
// Opens a transcript file, tells its format from its content, and hands the importer one unit
// at a time: a native line, or a whole conversation. Streams: a JSONL file line by line, a JSON
// document element by element, so memory does not grow with the file.

#include "domain/expected.h"
#include "importunit.h"

#include <QFile>
#include <QHash>
#include <QString>

#include <functional>
#include <memory>

class QTemporaryFile;

namespace verity {

// A JSON Lines line longer than this is refused unread (parsed, it would take gigabytes): far
// above any conversation or telemetry batch, and the file goes on after it.
constexpr qint64 maxLineBytes = qint64(64) << 20;

class TranscriptReader
{
public:
    // Return false to stop reading after this unit.
    using Sink = std::function<bool(ImportUnit unit)>;

    explicit TranscriptReader(QString path);
    ~TranscriptReader();

    // Reads to the end or until the sink stops it. An error means the file as a whole could not
    // be read: missing, an unknown format, a JSON document broken at some byte (the units
    // before that byte were handed on).
    Expected<void> read(const Sink &sink);

    QString format() const { return m_format; } // the first format found, once read() started
    qint64 bytesRead() const { return m_bytesRead; }
    qint64 bytesTotal() const { return m_bytesTotal; }
    qint64 linesRead() const { return m_linesRead; }
    QString sha256() const { return m_sha256; } // of the bytes read
    bool readingLines() const { return m_lines; } // a JSON Lines file, once units are handed on

private:
    enum class Layout { Lines, Document };
    Layout layoutOf(QFile &file, const QByteArray &head, qsizetype start, qint64 bom) const;
    Expected<void> readLines(QFile &file, const Sink &sink);
    Expected<void> readDocument(QFile &file, const QByteArray &head, const Sink &sink);
    Expected<void> readWholeDocument(QFile &file, const Sink &sink);
    void gatherTraces(QFile &file, Layout layout, const QByteArray &head);
    bool handOn(const Sink &sink, ImportUnit unit);
    bool handOnValue(const Sink &sink, const nlohmann::json &value, const FilePlace &place);
    Expected<void> spool(QFile &pipe);
    void scout(QFile &file, Layout layout, const QByteArray &head);
    void settle(ImportUnit &unit);

    QString m_path; // as named: what messages and the import record say
    QString m_source; // what is read: the path, or the copy of a pipe's bytes
    std::unique_ptr<QTemporaryFile> m_spool;
    QString m_format;
    qint64 m_bytesRead = 0;
    qint64 m_bytesTotal = 0;
    qint64 m_linesRead = 0;
    bool m_lines = false;
    QString m_sha256;
    qint64 m_fallbackAt = 0;
    QString m_stem;
    qint64 m_ordinal = 0;
    QString m_fileTimestamp;
    QString m_declaredProfile; // τ²: "tau-" + info.environment_info.domain_name
    QString m_declaredModel; // τ²: info.agent_info.llm
    bool m_otlp = false;
    QHash<QString, QString> m_traceConversations; // OTLP: gathered from the whole file first
    QHash<QString, QPair<QString, QString>> m_toolSpansWithin; // OTLP: ConversationContext's
    QHash<QString, QString> m_callAliases; // OTLP: ConversationContext's
    QHash<QString, ToolHint> m_toolHints; // OTLP: gathered from the whole file first, as traces are
    // Where each conversation ends: a first pass over the file notes the last unit of each
    // ticket (by a hash of its id: two ids sharing one only end a batch later), so units can
    // say where no conversation read so far goes on.
    bool m_scouting = false;
    QHash<size_t, qint64> m_lastUnitOf;
    qint64 m_unitOrdinal = 0;
    qint64 m_openUntil = 0;
};

} // namespace verity
