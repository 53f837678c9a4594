#pragma once

#include "domain/outcome.h"
#include "outcomestyle.h"

#include <QWidget>

#include <optional>

namespace verity {

// An outcome as a pill: icon, words and colour. Its accessible name is the words.
class OutcomeBadge : public QWidget
{
    Q_OBJECT

public:
    explicit OutcomeBadge(std::optional<Outcome> outcome, QWidget *parent = nullptr);
    // A person's check, not the system's answer: "Performed (attested)", with a dashed edge.
    void setAttested();
    // Its result may still come: "In flight", not yet unknown.
    void setInFlight(const QString &until);

    std::optional<Outcome> outcome() const { return m_outcome; }
    QString text() const;
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    std::optional<Outcome> m_outcome;
    OutcomeLook m_look;
};

} // namespace verity
