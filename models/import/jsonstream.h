#pragma once
// Reads a JSON document of any size one conversation at a time: the elements of the top-level
// array, or of one array member of the top-level object (τ²'s "simulations", OTLP's
// "resourceSpans"). Each element is built alone, handed on and dropped, so memory stays
// bounded by the largest conversation, not the file. Everything else is skipped unbuilt.

#include "domain/expected.h"

#include <QIODevice>
#include <QString>

#include <nlohmann/json.hpp>

#include <functional>

namespace verity {

class Sha256Stream;

class JsonElementStream
{
public:
    // `byteOffset`: where the element begins in the file. Return false to stop reading.
    using Sink = std::function<bool(nlohmann::json element, qint64 byteOffset)>;

    // `members`: for a top-level object, the array members whose elements are streamed; empty
    // for a top-level array.
    JsonElementStream(QIODevice &device, QStringList members = {});

    // Reads to the end, or until the sink says stop. An error names the byte offset and what
    // the parser expected; elements handed on before it stay handed on.
    Expected<void> run(const Sink &sink);

    // Top-level object members built whole into header() (τ²'s "info"), besides plain values.
    void keepInHeader(QStringList members) { m_kept = std::move(members); }

    // Every byte read is also added to `hash`, so the file is read once.
    void setHash(Sha256Stream *hash) { m_hash = hash; }

    qint64 bytesRead() const { return m_bytesRead; }
    bool stopped() const { return m_stopped; }
    // The member the last element came from; empty when no member was found (yet).
    QString member() const { return m_current; }
    // The top-level object's members with plain values ("timestamp"), and those kept whole, as
    // far as read.
    const nlohmann::json &header() const { return m_header; }

private:
    QIODevice &m_device;
    QStringList m_members;
    QStringList m_kept;
    QString m_current;
    Sha256Stream *m_hash = nullptr;
    qint64 m_bytesRead = 0;
    bool m_stopped = false;
    nlohmann::json m_header = nlohmann::json::object();
};

// What the first bytes of a JSON document show: the top-level kind, the top-level object's
// keys, or the keys of the top-level array's first element. Truncation is expected and fine.
struct JsonShape
{
    bool isArray = false;
    bool isObject = false;
    QStringList keys; // top-level object's keys, in order seen
    QStringList firstElementKeys; // first element of a top-level array, when an object
};
JsonShape sniffJsonShape(const QByteArray &head);

} // namespace verity
