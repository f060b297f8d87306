/* Services of the FMI wrapper to a model's C file, in addition to the contract of model.h.
 *
 * Parameter bindings. Every non-final parameter is an FMU parameter the importer may set. The generated
 * model_calculated_parameters applies each parameter's Modelica binding, in dependency order, unless
 * the importer set that parameter (model_*_was_set): a Modelica modification wins over the
 * declaration's binding, exactly so.
 *
 * Errors. model_error() logs a message through the importer's logger and makes the FMI function that
 * called the model return fmi2Error (e.g. a parameter outside its valid range in
 * model_calculated_parameters). Use it for conditions the model cannot continue from.
 */
#ifndef VEHICLERTM_MODEL_SUPPORT_H
#define VEHICLERTM_MODEL_SUPPORT_H

#include "model.h"

/* Nonzero if the importer set the Real / Integer / Boolean parameter with this value reference since
 * instantiation or the last fmi2Reset. */
int model_real_was_set(const ModelInstance *m, unsigned int vr);
int model_integer_was_set(const ModelInstance *m, unsigned int vr);
int model_boolean_was_set(const ModelInstance *m, unsigned int vr);

/* Log an error (printf format) and make the calling FMI function fail with fmi2Error. */
void model_error(ModelInstance *m, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Log an informational message (shown when the importer switched logging on). */
void model_log(ModelInstance *m, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
