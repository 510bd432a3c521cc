"""Seed 002's pattern: parse each hyperparameter from the command line, train, and report
the metric with cloudml-hypertune's report_hyperparameter_tuning_metric."""

import argparse

import hypertune
from sklearn.datasets import load_digits
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import train_test_split


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--learning_rate", type=float, default=0.01)
    parser.add_argument("--batch_size", type=float, default=64)
    parser.add_argument("--optimizer", default="sgd")
    args, _ = parser.parse_known_args()
    x, y = load_digits(return_X_y=True)
    x_train, x_test, y_train, y_test = train_test_split(x, y, random_state=0)
    model = SGDClassifier(learning_rate="constant", eta0=args.learning_rate,
                          average=args.optimizer == "adam", max_iter=int(args.batch_size))
    model.fit(x_train, y_train)
    accuracy = model.score(x_test, y_test)
    hypertune.HyperTune().report_hyperparameter_tuning_metric(
        hyperparameter_metric_tag="accuracy", metric_value=accuracy, global_step=1)


if __name__ == "__main__":
    main()
