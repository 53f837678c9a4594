#include "incidenttimeline.h"
