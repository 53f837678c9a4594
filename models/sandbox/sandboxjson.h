#pragma once
// JSON text written straight from values, byte for byte as QJsonDocument::toJson(Indented)
// writes it: a list page of the sandbox is a hundred objects, and building each as a
// QJsonObject to serialize it again cost more than reading it from the state. The caller
// gives an object's keys in sorted order, as a QJsonObject keeps them.

#include <QByteArray>
#include <QString>
#include <QVarLengthArray>

#include <QLatin1StringView>

namespace verity {

class SandboxJson
{
public:
    explicit SandboxJson(qsizetype expectedSize = 1024) { m_out.reserve(expectedSize); }

    // Each value goes at the top, into the open array, or after key() in the open object.
    void beginObject();
    void endObject();
    void beginArray();
    void endArray();
    void key(QLatin1StringView name);
    void key(const QString &name);
    void string(QLatin1StringView text);
    void string(const QString &text);
    void number(qint64 value);
    void boolean(bool value);
    void null();
    void stringOrNull(const QString &text)
    {
        text.isEmpty() ? null() : string(text);
    } // Stripe's null for "none"

    // The document, ended by a newline as QJsonDocument ends it.
    QByteArray take();

private:
    struct Level
    {
        bool array = false;
        bool empty = true;
    };
    void beforeValue();
    void beforeKey();
    void open(bool array);
    void close();
    void indent(qsizetype depth);

    QByteArray m_out;
    QVarLengthArray<Level, 8> m_levels;
};

} // namespace verity
