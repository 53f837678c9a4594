#pragma once
// A form-encoded request (application/x-www-form-urlencoded), the way Stripe's API takes its
// parameters, with metadata as `metadata[key]=value`. Also parses query strings, so a GET's
// parameters are read by the same rules.

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>
#include <utility>
#include <variant>

namespace verity {

struct SandboxFormError
{
    QString param; // the parameter at fault, as the error object names it
    QString message;
};

class SandboxForm
{
public:
    // Fails on a field given twice or a field without a name; the error names the field.
    static std::variant<SandboxForm, SandboxFormError> parse(const QByteArray &encoded);

    const QList<std::pair<QString, QString>> &fields() const { return m_fields; }
    bool has(const QString &name) const;
    QString value(const QString &name) const;
    QMap<QString, QString> metadata() const; // the metadata[...] fields, by key
    // The first field that is neither in `known` nor metadata[...]: Stripe refuses those.
    QString firstUnknown(const QStringList &known) const;

    // What makes two requests "the same request" for an idempotency key: the method, the path
    // and the parameters regardless of their order, hashed (SHA-256, lowercase hex).
    QString fingerprint(const QString &method, const QString &path) const;

private:
    QList<std::pair<QString, QString>> m_fields;
};

} // namespace verity
